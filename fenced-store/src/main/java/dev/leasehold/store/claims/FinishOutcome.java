package dev.leasehold.store.claims;

import java.util.List;

/**
 * What {@link BatchClaims#finishAll} did with each claim it was given: {@code finished} were still current and are
 * now done; {@code refused} were stale (the batch was claimed again after their lease ended, or was already finished
 * or failed) and changed nothing: send nothing more for them. Both keep the order of the claims given. Immutable and
 * thread-safe.
 *
 * @param finished the claims that were current and whose batches are now done
 * @param refused  the stale claims, which changed nothing
 */
public record FinishOutcome(List<BatchClaim> finished, List<BatchClaim> refused) {

    /**
     * Copies both lists.
     *
     * @param finished the claims that finished
     * @param refused  the claims that were refused
     */
    public FinishOutcome {
        finished = List.copyOf(finished);
        refused = List.copyOf(refused);
    }

    /**
     * Whether every claim finished.
     *
     * @return true when no claim was refused
     */
    public boolean allFinished() {
        return refused.isEmpty();
    }
}
