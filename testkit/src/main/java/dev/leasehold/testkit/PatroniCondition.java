package dev.leasehold.testkit;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a {@link WithPatroni} test where a {@link PatroniCluster} can start, skips it with one line naming the missing
 * Debian packages elsewhere, and never skips it where {@value #REQUIRED} is set (CI sets it after installing the
 * packages: a test that cannot start its cluster there fails). Stateless and thread-safe.
 */
public final class PatroniCondition implements ExecutionCondition {

    /** Set (to anything not blank) where the Patroni tests must run, never skip: CI. */
    public static final String REQUIRED = "LEASEHOLD_TEST_PATRONI";

    /** Made by JUnit. */
    public PatroniCondition() {}

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (Patroni.available()) {
            return ConditionEvaluationResult.enabled("Patroni, python3-kazoo and PostgreSQL 15 are installed");
        }
        String required = System.getenv(REQUIRED);
        if (required != null && !required.isBlank()) {
            return ConditionEvaluationResult.enabled(REQUIRED + " is set: runs (and fails) although " + Patroni.hint());
        }
        return ConditionEvaluationResult.disabled("Patroni test skipped: it " + Patroni.hint());
    }
}
