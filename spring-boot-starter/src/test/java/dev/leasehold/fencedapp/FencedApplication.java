package dev.leasehold.fencedapp;

import dev.leasehold.spring.LeaseholdFence;
import dev.leasehold.store.FenceGate;
import org.jooq.DSLContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The JPA application: Spring Data JPA with Hibernate (so {@code JpaTransactionManager}), JdbcTemplate and jOOQ on one
 * DataSource (HikariCP), and one candidate of role {@code fenced.role}.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class FencedApplication {

    @Bean
    Grants grants(@Value("${fenced.role:billing}") String role) {
        return new Grants(role);
    }

    @Bean
    InnerBilling innerBilling(JdbcTemplate jdbc) {
        return new InnerBilling(jdbc);
    }

    @Bean
    Billing billing(
            InvoiceRepository invoices,
            JdbcTemplate jdbc,
            DSLContext jooq,
            LeaseholdFence fence,
            FenceGate gate,
            InnerBilling inner) {
        return new Billing(invoices, jdbc, jooq, fence, gate, inner);
    }
}
