package dev.leasehold.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/**
 * A candidate whose work never calls {@code progress()} after its grant: its grants and revocations, and the loss
 * causes its initiator's listener heard ({@link #lost}), for the progress-deadline tests of both initiators.
 *
 * @param <C> the context type its initiator grants ({@link FencedContext} or {@link LeaseContext})
 * @param <L> the loss cause type its initiator's listeners hear
 */
public final class StuckCandidate<C extends Context, L> extends DefaultCandidate {
    public final BlockingQueue<C> granted = new LinkedBlockingQueue<>();
    public final BlockingQueue<C> revoked = new LinkedBlockingQueue<>();
    public final BlockingQueue<L> causes = new LinkedBlockingQueue<>();
    private final Class<C> contextType;

    public StuckCandidate(String id, String role, Class<C> contextType) {
        super(id, role);
        this.contextType = contextType;
    }

    @Override
    public void onGranted(Context context) {
        granted.add(contextType.cast(context)); // and then never calls progress(): the work is stuck
    }

    @Override
    public void onRevoked(Context context) {
        revoked.add(contextType.cast(context));
    }

    /** What the initiator's listener heard a grant end with. */
    public void lost(L cause) {
        causes.add(cause);
    }

    public static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T next = queue.poll(20, TimeUnit.SECONDS);
        assertThat(next).as("an event within 20 s").isNotNull();
        return next;
    }
}
