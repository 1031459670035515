package dev.leasehold.scenarios;

import dev.leasehold.scenarios.cli.Env;
import java.util.List;
import java.util.Optional;

/** One incident, replayed as it happened and with Leasehold. */
public interface Scenario {

    String name();

    String summary();

    /**
     * What this machine lacks to run it (packages, a privilege), on one line; empty when it can run. A scenario that
     * cannot run is skipped with this hint, and fails the program only when it was asked for by name.
     */
    default Optional<String> unavailable() {
        return Optional.empty();
    }

    /** Runs both (or all) runs, printing each timeline as it happens. */
    List<RunResult> run(Env env) throws Exception;
}
