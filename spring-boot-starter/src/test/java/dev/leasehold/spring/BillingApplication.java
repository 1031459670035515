package dev.leasehold.spring;

import dev.leasehold.store.FenceGate;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.leader.event.AbstractLeaderEvent;

/**
 * The sample: a Spring Boot application with one {@link BillingCandidate}, an H2 or PostgreSQL data source
 * ({@code billing.jdbc-url}) and the starter's
 * auto-configuration. Each instance gets its id from {@code billing.instance}; the {@link Timeline} is registered by
 * the test, shared by the instances.
 *
 * <p>Thread-safety: a configuration class.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class BillingApplication {

    @Bean
    DataSource dataSource(@Value("${billing.jdbc-url}") String url) throws SQLException {
        DataSource ds;
        if (url.startsWith("jdbc:postgresql:")) {
            PGSimpleDataSource pg = new PGSimpleDataSource();
            pg.setURL(url);
            ds = pg;
        } else {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL(url);
            ds = h2;
        }
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(
                    "CREATE TABLE IF NOT EXISTS charges (customer VARCHAR(64) NOT NULL, instance VARCHAR(64) NOT NULL,"
                            + " token BIGINT NOT NULL)");
        }
        return ds;
    }

    @Bean
    BillingCandidate billingCandidate(
            @Value("${billing.instance}") String instance, FenceGate gate, Timeline timeline) {
        return new BillingCandidate(instance, gate, timeline);
    }

    /** Records each leader event with the token its context carries. */
    @Bean
    ApplicationListener<AbstractLeaderEvent> leaderEvents(
            @Value("${billing.instance}") String instance, Timeline timeline) {
        return event -> timeline.add(instance + " event " + event.getClass().getSimpleName() + " "
                + FencedContext.of(event).token().value());
    }
}
