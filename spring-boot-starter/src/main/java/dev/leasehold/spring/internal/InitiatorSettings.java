package dev.leasehold.spring.internal;

import java.time.Duration;
import java.util.Optional;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * What the ZooKeeper and the lease initiators keep alike: where their leader events go (a
 * publisher set by the application, else the context's), and the progress deadline their next start hands on.
 *
 * <p>Thread-safety: thread-safe; each value is read when it is used.
 *
 * <p>Not API: public only so that the starter's other packages can share it.
 */
public final class InitiatorSettings {

    /** The longest progress deadline, as the recipes and the lease election allow. */
    static final Duration MAX_PROGRESS_DEADLINE = Duration.ofDays(1);

    private volatile LeaderEventPublisher publisher;
    private volatile boolean publisherSet;
    private volatile Duration progressDeadline;

    /** No publisher and no deadline yet. */
    public InitiatorSettings() {}

    /**
     * A publisher of the application's: it wins over the context's, whenever either is set.
     *
     * @param publisher the application's publisher
     */
    public void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        if (publisher == null) {
            throw new IllegalArgumentException("publisher must not be null");
        }
        this.publisher = publisher;
        this.publisherSet = true;
    }

    /**
     * The context's publisher: used unless the application set one.
     *
     * @param applicationEventPublisher the context's publisher
     */
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        if (!publisherSet) {
            this.publisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
        }
    }

    /**
     * Where the next event goes.
     *
     * @return the publisher; null before the context set its publisher
     */
    public LeaderEventPublisher publisher() {
        return publisher;
    }

    /**
     * The progress deadline the next start hands on.
     *
     * @param deadline more than 0 and at most 1 day
     * @throws IllegalArgumentException if it is outside that range
     */
    public void setProgressDeadline(Duration deadline) {
        if (deadline == null
                || deadline.compareTo(Duration.ZERO) <= 0
                || deadline.compareTo(MAX_PROGRESS_DEADLINE) > 0) {
            throw new IllegalArgumentException(
                    "progressDeadline must be more than 0 and at most 1 day (leave it unset for none), was "
                            + deadline);
        }
        this.progressDeadline = deadline;
    }

    /**
     * The progress deadline, if one was set.
     *
     * @return the deadline, or empty for none
     */
    public Optional<Duration> progressDeadline() {
        return Optional.ofNullable(progressDeadline);
    }
}
