package dev.leasehold.scenarios.incidents;

import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.incidents.billing.BillingExternalScenario;
import dev.leasehold.scenarios.incidents.billing.StaleLeaderScenario;
import dev.leasehold.scenarios.incidents.billing.StuckLeaderScenario;
import dev.leasehold.scenarios.incidents.dbfailover.DbFailoverScenario;
import dev.leasehold.scenarios.incidents.duplicatebatch.DuplicateBatchScenario;
import dev.leasehold.scenarios.incidents.minuteslots.MinuteSlotsScenario;
import dev.leasehold.scenarios.incidents.partitions.PartitionedBillingScenario;
import dev.leasehold.scenarios.incidents.pause.DbLeaseScenario;
import dev.leasehold.scenarios.incidents.pause.RealPauseScenario;
import dev.leasehold.scenarios.incidents.shedlock.ShedLockOverrunScenario;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** The scenarios, in the order they run. */
public final class Scenarios {

    private Scenarios() {}

    public static List<Scenario> all() {
        return List.of(
                new DuplicateBatchScenario(),
                new StaleLeaderScenario(),
                new MinuteSlotsScenario(),
                new RealPauseScenario(),
                new BillingExternalScenario(),
                new PartitionedBillingScenario(),
                new DbLeaseScenario(),
                new StuckLeaderScenario(),
                new DbFailoverScenario(),
                new ShedLockOverrunScenario());
    }

    public static Optional<Scenario> byName(String name) {
        return all().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    public static String names() {
        return all().stream().map(Scenario::name).collect(Collectors.joining(", "));
    }
}
