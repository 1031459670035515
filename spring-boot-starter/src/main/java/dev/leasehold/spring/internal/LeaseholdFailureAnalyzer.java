package dev.leasehold.spring.internal;

import dev.leasehold.spring.LeaseholdConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link LeaseholdConfigurationException} into Spring Boot's startup failure report: one description, one
 * action, no stack trace to dig through.
 *
 * <p>Thread-safety: stateless.
 */
public final class LeaseholdFailureAnalyzer extends AbstractFailureAnalyzer<LeaseholdConfigurationException> {

    /** Called by Spring Boot, listed in {@code META-INF/spring.factories}. */
    public LeaseholdFailureAnalyzer() {}

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LeaseholdConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
