package dev.leasehold.store.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** A PgBouncer test class: runs only where {@value PgBouncer#VARIABLE} is set, else skipped with one line saying how. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIfEnvironmentVariable(named = PgBouncer.VARIABLE, matches = ".*\\S.*", disabledReason = PgBouncer.HOW_TO_RUN)
public @interface WithPgBouncer {}
