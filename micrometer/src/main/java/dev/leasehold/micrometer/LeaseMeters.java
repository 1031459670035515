package dev.leasehold.micrometer;

import dev.leasehold.store.lease.LeaseElection;
import dev.leasehold.store.lease.LeaseListener;
import dev.leasehold.store.lease.LeaseLoss;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The meters of one participant of a {@link LeaseElection} (leader election on the database), the same meters as
 * {@link ElectionMeters} gives the ZooKeeper recipes, so that one dashboard and one set of alerts serve both:
 * <ul>
 *   <li>{@code leasehold.leader} gauge: 1 while this participant leads, else 0;</li>
 *   <li>{@code leasehold.leadership.grants} counter, {@code leasehold.leadership.losses} counter tagged {@code cause}
 *       (the {@link LeaseLoss}, lower case: {@code renew_failed}, {@code taken_over}, {@code closed},
 *       {@code stalled});</li>
 *   <li>{@code leasehold.leadership.held} timer: how long each leadership lasted, from grant to loss;</li>
 *   <li>{@code leasehold.leadership.wait} timer: from joining the election (binding, or the previous loss) to the
 *       grant;</li>
 *   <li>{@code leasehold.leadership.progress.age} time gauge (seconds), registered by {@link #bind} or {@link
 *       #progressAge}: how long the leader's work has gone without calling {@link LeaseElection#progress()} while this
 *       participant leads, else 0. With a progress deadline set, a loss with cause {@code stalled} follows when it
 *       passes the deadline.</li>
 * </ul>
 * Every meter is tagged {@code election} (the lease name) and {@code participant} (the holder id): the same tag keys
 * as {@link ElectionMeters}, since Prometheus refuses one meter name with two sets of tag keys. Times come from the
 * registry's clock.
 *
 * <p>The gauge says what this participant was told last: a holder whose renew deadline passed reads 0 as soon as the
 * election's event thread has told it, which is before a follower can lead (the lease outlives the deadline). Alert on
 * the sum over participants being 0 for longer than a lease duration plus a retry period, and on losses with cause
 * {@code renew_failed} or {@code stalled}.
 *
 * <p>Thread-safety: thread-safe; the election calls the listener methods from one thread at a time.
 */
public final class LeaseMeters implements LeaseListener {

    private final LeadershipMeters<LeaseLoss> meters;

    /**
     * Registers this participant's meters, at 0, and takes now as the moment it joined the election.
     *
     * @param registry    where the meters go
     * @param election    the {@code election} tag, usually the lease name
     * @param participant the {@code participant} tag, usually the holder id
     * @throws IllegalArgumentException if an argument is null, or a tag is blank
     */
    public LeaseMeters(MeterRegistry registry, String election, String participant) {
        // the same tag keys as ElectionMeters: Prometheus refuses one name with two sets of keys
        this.meters = new LeadershipMeters<>(registry, election, participant, LeaseLoss.class, false);
    }

    /**
     * Registers the meters of {@code election} (tagged with its name and holder id) and adds them as its listener.
     * Call it before {@link LeaseElection#start()}, so that the wait is measured from the start.
     *
     * @param registry where the meters are registered
     * @param election the participant to meter
     * @return the meters, to {@link #remove()} them later
     * @throws IllegalArgumentException if an argument is null
     */
    public static LeaseMeters bind(MeterRegistry registry, LeaseElection election) {
        Checks.notNull(election, "election");
        LeaseMeters meters = new LeaseMeters(registry, election.name(), election.holder());
        meters.progressAge(election::sinceProgress);
        election.addListener(meters);
        return meters;
    }

    /**
     * Registers the {@code leasehold.leadership.progress.age} time gauge, read from {@code sinceProgress} (the
     * election's {@link LeaseElection#sinceProgress()}; empty while not leading, shown as 0). {@link #bind} does it. At
     * most once per instance.
     *
     * @param sinceProgress how long the leader's work has gone without progress, empty while not leading
     * @throws IllegalArgumentException if {@code sinceProgress} is null
     */
    public void progressAge(Supplier<Optional<Duration>> sinceProgress) {
        meters.progressAge(sinceProgress);
    }

    @Override
    public void acquired(long token) {
        meters.acquired(token);
    }

    @Override
    public void lost(long token, LeaseLoss cause) {
        meters.lost(cause); // a lease election keeps trying after a loss
    }

    /**
     * What the {@code leasehold.leader} gauge shows.
     *
     * @return whether the last event this participant heard was a grant
     */
    public boolean leading() {
        return meters.leading();
    }

    /** Removes this participant's meters from the registry (after the election was closed, say). Idempotent. */
    public void remove() {
        meters.remove();
    }
}
