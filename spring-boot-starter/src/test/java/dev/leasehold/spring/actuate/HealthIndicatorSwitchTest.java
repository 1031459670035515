package dev.leasehold.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.spring.zookeeper.LeaseholdZookeeperAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code leasehold} health indicator obeys Spring Boot's switches, as Boot's own indicators do: on by default,
 * off with {@code management.health.leasehold.enabled=false} or with {@code management.health.defaults.enabled=false}
 * (unless turned on by name). The info contributor is not a health indicator and stays.
 */
class HealthIndicatorSwitchTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LeaseholdZookeeperAutoConfiguration.class, LeaseholdActuatorAutoConfiguration.class));

    @Test
    void theHealthIndicatorIsThereByDefault() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .hasSingleBean(LeaseholdHealthIndicator.class)
                .hasBean("leaseholdHealthIndicator")
                .hasSingleBean(LeaseholdInfoContributor.class));
    }

    @Test
    void managementHealthLeaseholdEnabledFalseTurnsTheHealthIndicatorOff() {
        runner.withPropertyValues("management.health.leasehold.enabled=false").run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(LeaseholdHealthIndicator.class)
                .doesNotHaveBean("leaseholdHealthIndicator")
                .hasSingleBean(LeaseholdInfoContributor.class));
    }

    @Test
    void managementHealthDefaultsEnabledFalseTurnsItOffUnlessTurnedOnByName() {
        runner.withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LeaseholdHealthIndicator.class));
        runner.withPropertyValues(
                        "management.health.defaults.enabled=false", "management.health.leasehold.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LeaseholdHealthIndicator.class));
    }
}
