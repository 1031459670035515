package dev.leasehold.store.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/** A MariaDB test class: runs only where {@value MariaDb#VARIABLE} is set, else skipped with one line saying how. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIfEnvironmentVariable(named = MariaDb.VARIABLE, matches = ".*\\S.*", disabledReason = MariaDb.HOW_TO_RUN)
public @interface WithMariaDb {}
