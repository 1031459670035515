package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.PatroniMember;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The nemesis's database failovers on a {@link PatroniCluster} ({@link Fault#FAILOVER}, {@link
 * Fault#FAILOVER_AFTER_ADVANCE}). Each begins once every standby streams (the member killed by the one before is back),
 * and, in synchronous mode, returns only once the killed member is back as the synchronous standby: strict mode with
 * two members commits nothing until then, so the next fault would meet a database that only waits. Patroni brings the
 * killed member back itself (pg_rewind, then streaming from the new primary). Not thread-safe: the nemesis's thread
 * only.
 */
final class Failovers {

    /** How long a promotion, or a rejoin, may take before the campaign fails. */
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final PatroniCluster cluster;
    private final List<Participant> participants;
    private final Observations observations;
    private final int sessionMs;
    private final Consumer<String> say;

    Failovers(
            PatroniCluster cluster,
            List<Participant> participants,
            Observations observations,
            int sessionMs,
            Consumer<String> say) {
        this.cluster = cluster;
        this.participants = participants;
        this.observations = observations;
        this.sessionMs = sessionMs;
        this.say = say;
    }

    /** Kills the primary, waits for the promotion and (synchronous mode) for the killed member's return. */
    void failover() {
        cluster.awaitStandbys(WAIT);
        PatroniMember killed = cluster.killPrimary();
        say.accept("kill the database's primary " + killed.name() + " (SIGKILL of PostgreSQL)");
        long from = System.nanoTime();
        PatroniMember promoted = cluster.awaitNewPrimary(killed, WAIT);
        say.accept(String.format("%s promoted after %.1f s", promoted.name(), (System.nanoTime() - from) / 1e9));
        awaitReturn(killed);
    }

    /**
     * Pauses replication, then {@code victim} (a leader) until another participant was granted its election and
     * advanced (asynchronous: and had a write acknowledged; synchronous: its advance waits for the standby), holds
     * that successor's work, kills the primary, waits for the promotion, and lets the victim's write go first; then
     * releases the successor and waits for the killed member's return. On an asynchronous cluster the promoted
     * standby lacks the advance, and the victim's stale write is accepted: the checker must find it (rule 6).
     */
    void failoverAfterAdvance(Participant victim) throws Exception {
        cluster.awaitStandbys(WAIT);
        Set<String> ledIn = observations.electionsLedBy(victim.id);
        int grantsBefore = observations.grantCount();
        int stopped = cluster.pauseReplication();
        say.accept("pause replication to the standby (" + stopped + " walsender" + (stopped == 1 ? "" : "s")
                + " stopped with SIGSTOP), then pause " + victim.id + (ledIn.isEmpty() ? "" : " (a leader)") + ": "
                + victim.pauseKind());
        victim.pause();
        Optional<Participant> successor = Optional.empty();
        try {
            successor = successor(victim, ledIn, grantsBefore);
            successor.ifPresent(Participant::holdWork);
            PatroniMember killed = cluster.killPrimary();
            say.accept("kill the database's primary " + killed.name() + " right after "
                    + successor.map(p -> p.id + "'s advance").orElse("the pause (no successor came in time)"));
            PatroniMember promoted = cluster.awaitNewPrimary(killed, WAIT);
            say.accept(promoted.name() + " promoted; release " + victim.id + " first (its next write has its old"
                    + " token)" + successor.map(p -> ", " + p.id + " held").orElse(""));
            observations.refusalsOf(victim.id); // what refused it before the release is not the late write's story
            victim.unpause();
            observations.awaitNotLeading(victim.id, 3L * sessionMs + 30_000, TimeUnit.MILLISECONDS);
            List<String> refusals = observations.refusalsOf(victim.id);
            say.accept(victim.id + " wrote with its old token and stopped; refused by "
                    + (refusals.isEmpty() ? "nothing (its belief ended)" : String.join(", then ", refusals))
                    + successor.map(p -> "; release " + p.id).orElse(""));
            successor.ifPresent(Participant::releaseWork);
            awaitReturn(killed);
        } finally {
            cluster.resumeReplication(); // if the kill never came
            victim.unpause();
            successor.ifPresent(Participant::releaseWork);
        }
    }

    /**
     * The participant granted the victim's election after {@code grantsBefore}, once its advance was sent: on an
     * asynchronous cluster, once it had a write acknowledged; on a synchronous one, once a commit more waits for the
     * (paused) standby. Empty if nobody was granted within twice the session.
     */
    private Optional<Participant> successor(Participant victim, Set<String> ledIn, int grantsBefore)
            throws InterruptedException {
        int waitingBefore = cluster.synchronous() ? cluster.commitsWaitingForStandby() : 0;
        Optional<String> id = observations.awaitGrantElsewhere(
                ledIn, victim.id, grantsBefore, 2L * sessionMs + 2_000, TimeUnit.MILLISECONDS);
        if (id.isEmpty()) {
            return Optional.empty();
        }
        if (cluster.synchronous()) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(sessionMs);
            while (cluster.commitsWaitingForStandby() <= waitingBefore && System.nanoTime() < deadline) {
                Thread.sleep(20); // polling the primary for the successor's advance, which waits for the standby
            }
        } else {
            observations.awaitWriteElsewhere(ledIn, victim.id, grantsBefore, 2L * sessionMs, TimeUnit.MILLISECONDS);
        }
        return participants.stream().filter(p -> p.id.equals(id.get())).findFirst();
    }

    /** In synchronous mode, waits until {@code killed} is back as the synchronous standby. */
    private void awaitReturn(PatroniMember killed) {
        if (!cluster.synchronous()) {
            return; // asynchronous: the primary commits alone; the next failover waits for the standby
        }
        long from = System.nanoTime();
        cluster.awaitStandbys(WAIT);
        say.accept(String.format(
                "%s back as the synchronous standby after %.1f s", killed.name(), (System.nanoTime() - from) / 1e9));
    }
}
