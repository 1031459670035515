package dev.leasehold.fencedapp;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.spring.LeaseholdFence;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.LazyConnectionDataSourceProxy;

/**
 * The JDBC application: no JPA, so Boot's {@code JdbcTransactionManager}, over a {@link LazyConnectionDataSourceProxy}
 * in front of HikariCP; JdbcTemplate and jOOQ.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(
        excludeName = {
            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
            "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration"
        })
public class LazyApplication {

    @Bean(destroyMethod = "")
    DataSource dataSource(
            @Value("${fenced.url}") String url,
            @Value("${fenced.username:}") String username,
            @Value("${fenced.password:}") String password) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        if (!username.isEmpty()) {
            pool.setUsername(username);
            pool.setPassword(password);
        }
        pool.setMaximumPoolSize(4);
        return new LazyConnectionDataSourceProxy(pool);
    }

    @Bean
    Grants grants(@Value("${fenced.role:billing-lazy}") String role) {
        return new Grants(role);
    }

    @Bean
    JdbcBilling jdbcBilling(JdbcTemplate jdbc, DSLContext jooq, LeaseholdFence fence) {
        return new JdbcBilling(jdbc, jooq, fence);
    }
}
