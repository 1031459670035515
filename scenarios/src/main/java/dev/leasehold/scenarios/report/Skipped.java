package dev.leasehold.scenarios.report;

/**
 * A run, or a whole scenario, that could not run on this machine, with the hint the console printed: the report's
 * summary says so in the cell it would have filled, so that a reader can tell "skipped" from "nothing happened".
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param scenario the scenario's name
 * @param side     which of its runs were skipped
 * @param hint     why, and what would let it run (as the console printed it)
 */
public record Skipped(String scenario, Side side, String hint) {

    /** Which runs of a scenario were skipped. */
    public enum Side {
        /** The broken design's run ("as it happened"). */
        AS_IT_HAPPENED,
        /** The Leasehold run. */
        WITH_LEASEHOLD,
        /** Every run: the scenario could not run at all. */
        BOTH;

        boolean covers(boolean broken) {
            return this == BOTH || (this == AS_IT_HAPPENED) == broken;
        }
    }
}
