package dev.leasehold.micrometer;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The meters of one participant of one election, fed by the latch's listener events:
 * <ul>
 *   <li>{@code leasehold.leader} gauge: 1 while this participant leads, else 0 (the shape of Kubernetes'
 *       {@code leader_election_master_status});</li>
 *   <li>{@code leasehold.leadership.grants} counter, {@code leasehold.leadership.losses} counter tagged
 *       {@code cause} (the {@link LossCause}, lower case);</li>
 *   <li>{@code leasehold.leadership.held} timer: how long each leadership lasted, from grant to loss;</li>
 *   <li>{@code leasehold.leadership.wait} timer: from joining the election (binding, or the previous loss, after
 *       which the latch queues again) to the grant;</li>
 *   <li>{@code leasehold.leader.token} gauge: the fencing token of the current grant while this participant leads,
 *       else 0 (exact up to 2^53, which a ZooKeeper czxid reaches only after 2^21 ZooKeeper leader epochs);</li>
 *   <li>{@code leasehold.leadership.progress.age} time gauge (seconds), registered by {@link #bind}: how long the
 *       leader's work has gone without calling {@link FencedLeaderLatch#progress()} while this participant leads,
 *       else 0. With a progress deadline set, a loss with cause {@code stalled} follows when it passes the
 *       deadline.</li>
 * </ul>
 * Every meter is tagged {@code election} (the latch path) and {@code participant} (the participant id). Times are
 * taken from the registry's clock.
 *
 * <p>The times are as the listener hears them: a grant is heard a moment after Curator decided it, on the recipe's
 * own thread. The gauge says what this participant was told last, not what ZooKeeper holds at this instant: it can
 * read 1 for a moment after the session was lost. Alert on the sum over participants being 0 (no leader) for longer
 * than a grant normally takes, and on it being above 1 for longer than a session timeout.
 *
 * <p>Thread-safety: thread-safe; the listener methods may be called from any thread (the recipe calls them from one at
 * a time).
 */
public final class ElectionMeters implements FencedLeaderListener {

    private final LeadershipMeters<LossCause> meters;

    /**
     * Registers this participant's meters, at 0, and takes now as the moment it joined the election.
     *
     * @param registry    where the meters go
     * @param election    the {@code election} tag, usually the latch path
     * @param participant the {@code participant} tag, usually the participant id
     * @throws IllegalArgumentException if an argument is null, or a tag is blank
     */
    public ElectionMeters(MeterRegistry registry, String election, String participant) {
        this.meters = new LeadershipMeters<>(registry, election, participant, LossCause.class, true);
    }

    /**
     * Registers the meters of {@code latch} (tagged with its path and participant id) and adds them as its listener,
     * told on the recipe's own thread. Call it before {@link FencedLeaderLatch#start()}, so that the wait is measured
     * from the start.
     *
     * @param registry where the meters are registered
     * @param latch    the participant to meter
     * @return the meters, to {@link #remove()} them later
     * @throws IllegalArgumentException if an argument is null
     */
    public static ElectionMeters bind(MeterRegistry registry, FencedLeaderLatch latch) {
        Checks.notNull(latch, "latch");
        ElectionMeters meters = new ElectionMeters(registry, latch.latchPath(), latch.participantId());
        meters.progressAge(() -> latch.sinceProgress());
        latch.addListener(meters);
        return meters;
    }

    /**
     * Registers the {@code leasehold.leadership.progress.age} time gauge, read from {@code sinceProgress} (the
     * recipe's {@code sinceProgress()}; empty while not leading, shown as 0). {@link #bind} does it for a latch; call
     * it for a {@code FencedLeaderSelector} with {@code selector::sinceProgress}. At most once per instance.
     *
     * @param sinceProgress how long the leader's work has gone without progress, empty while not leading
     * @throws IllegalArgumentException if {@code sinceProgress} is null
     */
    public void progressAge(Supplier<Optional<Duration>> sinceProgress) {
        meters.progressAge(sinceProgress);
    }

    /**
     * Takes now as the moment this participant (re)joined the election; for a recipe that does not queue again by
     * itself after a loss ({@code FencedLeaderSelector} without {@code autoRequeue}), call it when it does.
     */
    public void joined() {
        meters.joined();
    }

    @Override
    public void leadershipAcquired(FencingToken token) {
        meters.acquired(token.value());
    }

    @Override
    public void leadershipLost(FencingToken token, LossCause cause) {
        meters.lost(cause); // a latch queues again at once after a loss
    }

    /**
     * What the {@code leasehold.leader} gauge shows.
     *
     * @return whether the last event this participant heard was a grant
     */
    public boolean leading() {
        return meters.leading();
    }

    /** Removes this participant's meters from the registry (after the latch was closed, say). Idempotent. */
    public void remove() {
        meters.remove();
    }
}
