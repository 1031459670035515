package dev.leasehold.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/** A Patroni test class: skipped with one line naming the missing Debian packages ({@link PatroniCondition}). */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(PatroniCondition.class)
public @interface WithPatroni {}
