package dev.leasehold.scenarios;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The scenarios, in the order they run. */
final class Scenarios {

    private Scenarios() {}

    static List<Scenario> all() {
        return List.of(
                new DuplicateBatchScenario(),
                new StaleLeaderScenario(),
                new MinuteSlotsScenario(),
                new RealPauseScenario(),
                new BillingExternalScenario(),
                new PartitionedBillingScenario(),
                new DbLeaseScenario(),
                new StuckLeaderScenario(),
                new DbFailoverScenario());
    }

    static Optional<Scenario> byName(String name) {
        return all().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    static String names() {
        return all().stream().map(Scenario::name).collect(Collectors.joining(", "));
    }
}
