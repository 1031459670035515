package dev.leasehold.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Patroni test class: skipped with one line naming the missing Debian packages ({@link PatroniCondition}); a
 * {@link PatroniCluster} parameter of its {@code @BeforeAll}, {@code @BeforeEach} or test methods gets the class's one
 * cluster ({@link PatroniClusterResolver}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith({PatroniCondition.class, PatroniClusterResolver.class})
public @interface WithPatroni {

    /**
     * @return whether the class's cluster starts in {@code synchronous_mode} (strict); asynchronous by default
     */
    boolean synchronous() default false;
}
