package dev.leasehold.spring.zookeeper;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Turns down ZooKeeper's client log by default: while a server is unreachable, {@code ClientCnxn} logs a WARN with a
 * stack trace for every connection attempt (about one a second: 838 lines in 40 s were measured). The starter's
 * {@link ZookeeperReadiness} logs each change of the connection once instead. The default is the last property
 * source, so any setting of {@code logging.level.org.apache.zookeeper.ClientCnxn} wins.
 *
 * <p>Thread-safety: stateless.
 */
public final class LeaseholdLogDefaults implements EnvironmentPostProcessor {

    /** The name of the property source this adds. */
    public static final String SOURCE = "leaseholdLogDefaults";

    /** Created by Spring Boot from {@code META-INF/spring.factories}. */
    public LeaseholdLogDefaults() {}

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getPropertySources().contains(SOURCE)) {
            environment
                    .getPropertySources()
                    .addLast(new MapPropertySource(
                            SOURCE, Map.of("logging.level.org.apache.zookeeper.ClientCnxn", "ERROR")));
        }
    }
}
