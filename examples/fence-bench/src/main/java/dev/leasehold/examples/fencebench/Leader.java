package dev.leasehold.examples.fencebench;

import dev.leasehold.spring.FencedContext;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/** The bench's one candidate, on the database lease: records its grant's token, which {@code @Fenced} checks. */
public class Leader extends DefaultCandidate {

    private final CountDownLatch granted = new CountDownLatch(1);
    private volatile long token;

    /** The candidate of role {@code fence-bench}. */
    public Leader() {
        super(null, "fence-bench");
    }

    @Override
    public void onGranted(Context context) {
        token = ((FencedContext) context).token().value();
        granted.countDown();
    }

    @Override
    public void onRevoked(Context context) {
        token = 0;
    }

    /**
     * Waits for the first grant.
     *
     * @param seconds how long to wait
     * @return the grant's token
     * @throws InterruptedException if interrupted while waiting
     */
    long awaitGrant(long seconds) throws InterruptedException {
        if (!granted.await(seconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no grant of the database lease within " + seconds + " s: is another"
                    + " instance holding role fence-bench on this database?");
        }
        return token;
    }
}
