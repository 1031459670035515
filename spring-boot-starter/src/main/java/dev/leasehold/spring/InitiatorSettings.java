package dev.leasehold.spring;

import java.time.Duration;
import java.util.Optional;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

/**
 * What {@link FencedLeaderInitiator} and {@link LeaseLeaderInitiator} keep alike: where their leader events go (a
 * publisher set by the application, else the context's), and the progress deadline their next start hands on.
 *
 * <p>Thread-safety: thread-safe; each value is read when it is used.
 */
final class InitiatorSettings {

    /** The longest progress deadline, as the recipes and the lease election allow. */
    static final Duration MAX_PROGRESS_DEADLINE = Duration.ofDays(1);

    private volatile LeaderEventPublisher publisher;
    private volatile boolean publisherSet;
    private volatile Duration progressDeadline;

    /** A publisher of the application's: it wins over the context's, whenever either is set. */
    void setLeaderEventPublisher(LeaderEventPublisher publisher) {
        if (publisher == null) {
            throw new IllegalArgumentException("publisher must not be null");
        }
        this.publisher = publisher;
        this.publisherSet = true;
    }

    /** The context's publisher: used unless the application set one. */
    void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        if (!publisherSet) {
            this.publisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
        }
    }

    /** Where the next event goes; null before the context set its publisher. */
    LeaderEventPublisher publisher() {
        return publisher;
    }

    void setProgressDeadline(Duration deadline) {
        if (deadline == null
                || deadline.compareTo(Duration.ZERO) <= 0
                || deadline.compareTo(MAX_PROGRESS_DEADLINE) > 0) {
            throw new IllegalArgumentException(
                    "progressDeadline must be more than 0 and at most 1 day (leave it unset for none), was "
                            + deadline);
        }
        this.progressDeadline = deadline;
    }

    Optional<Duration> progressDeadline() {
        return Optional.ofNullable(progressDeadline);
    }
}
