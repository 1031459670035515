package dev.leasehold.spring.metrics;

import dev.leasehold.micrometer.BatchMeters;
import dev.leasehold.store.claims.BatchClaims;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The batch queue's gauges ({@link BatchMeters}: {@code leasehold.batches}, {@code leasehold.batches.oldest.pending})
 * for an application that uses the {@link BatchClaims} bean, refreshed by the starter: once when the context has
 * started, then every {@code leasehold.store.batch-meters-refresh} (30 s by default) on a thread of its own
 * ({@code leasehold-batch-meters}). A refresh is one statement over the batch table; a failed one is logged and the
 * gauges keep the previous counts.
 *
 * <p>An application that never injects {@code BatchClaims} (election only, say) gets no batch gauges at all, so none
 * reads NaN. "Uses" means another bean depends on it (a constructor or method parameter, an {@code @Autowired}
 * field), as Spring records it.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LeaseholdBatchMeters implements SmartInitializingSingleton, DisposableBean, BeanNameAware {

    private static final Logger log = LoggerFactory.getLogger(LeaseholdBatchMeters.class);

    private final MeterRegistry registry;
    private final ObjectProvider<BatchClaims> claims;
    private final ConfigurableListableBeanFactory beans;
    private final Duration period;
    private volatile String name = "leaseholdBatchMeters";
    private volatile BatchMeters meters;
    private volatile ScheduledExecutorService refresher;
    private boolean failing; // only on the refresher's thread

    /**
     * @param registry the application's registry
     * @param claims   the batch claims bean, if there is one
     * @param beans    the bean factory, which records who uses the batch claims
     * @param period   how often the gauges are refreshed
     */
    public LeaseholdBatchMeters(
            MeterRegistry registry,
            ObjectProvider<BatchClaims> claims,
            ConfigurableListableBeanFactory beans,
            Duration period) {
        this.registry = registry;
        this.claims = claims;
        this.beans = beans;
        this.period = period;
    }

    @Override
    public void setBeanName(String beanName) {
        this.name = beanName;
    }

    /** Registers the gauges and starts refreshing them, if another bean uses the batch claims. */
    @Override
    public void afterSingletonsInstantiated() {
        BatchClaims used = claims.getIfUnique();
        if (used == null || !usedByAnotherBean()) {
            log.debug("no bean uses BatchClaims: no batch gauges");
            return;
        }
        meters = new BatchMeters(registry, used);
        refresh();
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "leasehold-batch-meters");
            thread.setDaemon(true);
            return thread;
        });
        refresher = executor;
        long millis = period.toMillis();
        executor.scheduleWithFixedDelay(this::refresh, millis, millis, TimeUnit.MILLISECONDS);
    }

    private boolean usedByAnotherBean() {
        for (String claimsBean : beans.getBeanNamesForType(BatchClaims.class)) {
            if (Arrays.stream(beans.getDependentBeans(claimsBean)).anyMatch(user -> !user.equals(name))) {
                return true;
            }
        }
        return false;
    }

    private void refresh() {
        BatchMeters current = meters;
        if (current == null) {
            return;
        }
        try {
            current.refresh();
            if (failing) {
                log.info("batch gauges refreshed again");
            }
            failing = false;
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn(
                        "batch gauges not refreshed (they keep the last counts; retried every {} ms): {}",
                        period.toMillis(),
                        e.toString());
            }
            failing = true;
        }
    }

    /**
     * The gauges, if they were registered.
     *
     * @return the gauges, or empty when no bean uses the batch claims
     */
    public Optional<BatchMeters> meters() {
        return Optional.ofNullable(meters);
    }

    /** Stops refreshing and removes the gauges. */
    @Override
    public void destroy() {
        ScheduledExecutorService executor = refresher;
        if (executor != null) {
            executor.shutdownNow();
        }
        BatchMeters current = meters;
        if (current != null) {
            current.remove();
        }
    }
}
