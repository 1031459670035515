package dev.leasehold.examples.billing;

import java.time.Duration;
import java.time.YearMonth;
import java.time.ZoneOffset;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The billing run's settings ({@code billing.*}).
 *
 * <p>How often the leader looks for customers to bill is {@code billing.interval} (default {@code 10s}), read by
 * {@link BillingRun}'s {@code @Scheduled}.
 *
 * @param period the period billed, {@code yyyy-MM}; unset: the month before this one (UTC)
 * @param pace   the wait between two customers of a run (a payment provider's rate limit, say)
 */
@ConfigurationProperties("billing")
public record BillingProperties(YearMonth period, @DefaultValue("0s") Duration pace) {

    /**
     * Checks the pace and fills in the period.
     *
     * @param period the period, or null for last month
     * @param pace   the pace, zero or more
     */
    public BillingProperties {
        if (period == null) {
            period = YearMonth.now(ZoneOffset.UTC).minusMonths(1);
        }
        if (pace.isNegative()) {
            throw new IllegalArgumentException("billing.pace must not be negative, was " + pace);
        }
    }
}
