package dev.leasehold.examples.fencebench;

import dev.leasehold.store.FenceGate;
import javax.sql.DataSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The service under test: Spring Data JPA on Hibernate, JdbcTemplate, HikariCP and the Leasehold starter electing on
 * the database lease ({@code leasehold.election.backend=jdbc}) of the same PostgreSQL, so the bench needs nothing
 * else. {@link FenceBench} starts it with the database's properties.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class FenceBenchApplication {

    /** For Spring. */
    public FenceBenchApplication() {}

    @Bean
    Leader leader() {
        return new Leader();
    }

    @Bean
    PassedChecks passedChecks() {
        return new PassedChecks();
    }

    @Bean
    Writes writes(EntryRepository entries, JdbcTemplate jdbc, FenceGate gate, DataSource dataSource) {
        return new Writes(entries, jdbc, gate, dataSource);
    }
}
