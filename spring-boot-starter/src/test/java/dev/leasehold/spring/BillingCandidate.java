package dev.leasehold.spring;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;

/**
 * The sample's leader work: while this instance leads the role {@code billing}, a loop takes customers from a queue
 * and charges each through the {@link FenceGate} with the token from the {@link FencedContext}. The fence is advanced
 * first, as soon as it leads. {@code onRevoked} stops the loop and returns only once it stopped.
 *
 * <p>Thread-safety: the callbacks run on the initiator's thread; {@link #charge} may be called from any thread.
 */
final class BillingCandidate extends AbstractCandidate {

    static final String RESOURCE = "billing-2026-11";

    private final FenceGate gate;
    private final Timeline timeline;
    private final BlockingQueue<String> customers = new LinkedBlockingQueue<>();
    private volatile Thread loop;
    /** Holds the charge of the customer named {@link #SLOW}: a charge still in flight when leadership ends. */
    private final CountDownLatch slowCharge = new CountDownLatch(1);

    static final String SLOW = "slow";

    BillingCandidate(String id, FenceGate gate, Timeline timeline) {
        super(id, "billing");
        this.gate = gate;
        this.timeline = timeline;
    }

    /** Hands a customer to the billing loop, if this instance leads now or later. */
    void charge(String customer) {
        customers.add(customer);
    }

    @Override
    public void onGranted(Context context) {
        long token = ((FencedContext) context).token().value();
        gate.advance(RESOURCE, token); // fence first: the old leader's writes are refused from here on
        timeline.add(getId() + " granted " + token);
        Thread thread = new Thread(() -> bill(token), "billing-" + getId());
        loop = thread;
        thread.start();
    }

    private void bill(long token) {
        try {
            while (true) {
                String customer = customers.take();
                if (customer.equals(SLOW)) {
                    timeline.add(getId() + " charging " + customer);
                    awaitUninterruptibly(slowCharge); // a charge in flight finishes, interrupt or not
                }
                gate.update(
                        RESOURCE,
                        token,
                        "INSERT INTO charges (customer, instance, token) VALUES (?, ?, ?)",
                        customer,
                        getId(),
                        token);
                timeline.add(getId() + " charged " + customer + " with " + token);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (StaleTokenException e) {
            timeline.add(getId() + " refused " + token);
        }
    }

    /** Lets the charge of {@link #SLOW} finish. */
    void finishSlowCharge() {
        slowCharge.countDown();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onRevoked(Context context) {
        timeline.add(getId() + " revoking " + ((FencedContext) context).token().value());
        Thread thread = loop;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        timeline.add(getId() + " stopped billing "
                + ((FencedContext) context).token().value());
    }
}
