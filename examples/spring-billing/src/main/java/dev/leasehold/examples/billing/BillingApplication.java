package dev.leasehold.examples.billing;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The billing service: Spring Boot, Spring Data JPA on PostgreSQL, a leader-only scheduled billing run
 * ({@link BillingRun}) that bills each customer in a {@code @Fenced @Transactional} method ({@link BillingService}).
 * Run two or more instances: one leads (on ZooKeeper, or on the database lease with
 * {@code leasehold.election.backend=jdbc}) and bills; the others wait to take over.
 */
@SpringBootApplication
@EnableScheduling
@ConfigurationPropertiesScan
public class BillingApplication {

    /** Not instantiated by hand: Spring makes it. */
    BillingApplication() {}

    /**
     * Starts the service.
     *
     * @param args Spring Boot's arguments, e.g. {@code --billing.period=2026-11}
     */
    public static void main(String[] args) {
        SpringApplication.run(BillingApplication.class, args);
    }
}
