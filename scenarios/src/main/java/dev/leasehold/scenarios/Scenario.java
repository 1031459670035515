package dev.leasehold.scenarios;

import java.util.List;

/** One incident, replayed as it happened and with Leasehold. */
public interface Scenario {

    String name();

    String summary();

    /** Runs both (or all) runs, printing each timeline as it happens. */
    List<RunResult> run(Env env) throws Exception;
}
