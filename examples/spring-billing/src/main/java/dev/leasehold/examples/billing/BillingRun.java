package dev.leasehold.examples.billing;

import dev.leasehold.spring.NotLeaderException;
import dev.leasehold.store.StaleTokenException;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The billing run (incident 2 of the seeds): on the leader only, every {@code billing.interval}, bill each customer
 * that has no invoice for the period yet, one transaction per customer.
 *
 * <p>The leader reads its list once, at the start of the run. If it is paused mid-run (a GC, a frozen VM, {@code kill
 * -STOP}) past its session or lease, another instance takes over and bills the rest; when the old one wakes up, it goes
 * on with its old list. Nothing here can tell it in time: the fence refuses its next invoice
 * ({@link NotLeaderException} or {@link StaleTokenException}) and the run stops.
 */
@Component
public class BillingRun {

    private static final Logger log = LoggerFactory.getLogger(BillingRun.class);

    private final BillingLeader leader;
    private final CustomerRepository customers;
    private final BillingService billing;
    private final BillingProperties properties;

    BillingRun(
            BillingLeader leader, CustomerRepository customers, BillingService billing, BillingProperties properties) {
        this.leader = leader;
        this.customers = customers;
        this.billing = billing;
        this.properties = properties;
    }

    /** One run: nothing unless this instance leads and someone is left to bill. */
    @Scheduled(fixedDelayString = "${billing.interval:10s}")
    public void run() {
        OptionalLong granted = leader.token();
        if (granted.isEmpty()) {
            return;
        }
        long token = granted.getAsLong();
        String period = properties.period().toString();
        List<Customer> unbilled = customers.findUnbilled(period);
        if (unbilled.isEmpty()) {
            return;
        }
        log.info("billing run for {} with token {}: {} customers to bill", period, token, unbilled.size());
        int billed = 0;
        try {
            for (Customer customer : unbilled) {
                billing.bill(customer, period, token);
                billed++;
                log.info("billed {} for {} with token {}", customer.getName(), period, token);
                Thread.sleep(properties.pace().toMillis());
            }
            log.info("billing run for {} done: {} billed with token {}", period, billed, token);
        } catch (NotLeaderException | StaleTokenException refused) {
            log.warn("billing run for {} stopped after {} billed: {}", period, billed, refused.toString());
        } catch (InterruptedException shuttingDown) {
            Thread.currentThread().interrupt();
        }
    }
}
