package dev.leasehold.spring.nocurator;

import dev.leasehold.store.lease.LeaseLock;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring Boot application with every auto-configuration of the test class path and the database backend, started
 * by {@link WithoutCuratorTest} in a class loader without Curator and ZooKeeper, as {@code docs/spring-boot.md}
 * promises for {@code leasehold.election.backend=jdbc}.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class WithoutCuratorApplication {

    /**
     * Starts the application on an in-memory H2, takes and releases a database lock on the store's schema the starter
     * installed, and stops.
     *
     * @param h2Url the database
     * @return how many beans of the context are lock registries, and the database lock's token
     */
    public static String start(String h2Url) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WithoutCuratorApplication.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.datasource.url=" + h2Url,
                        "spring.main.banner-mode=off",
                        "leasehold.election.backend=jdbc")
                .run()) {
            int registries = context.getBeanNamesForType(
                            org.springframework.integration.support.locks.LockRegistry.class)
                    .length;
            LeaseLock locks = new LeaseLock(context.getBean(DataSource.class));
            LeaseLock.Hold hold = locks.tryLock("without-curator", "app", Duration.ofMinutes(1))
                    .orElseThrow();
            locks.unlock(hold);
            return "registries " + registries + ", token " + hold.token();
        }
    }
}
