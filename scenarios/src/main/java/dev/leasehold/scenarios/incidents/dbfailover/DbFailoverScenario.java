package dev.leasehold.scenarios.incidents.dbfailover;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.Patroni;
import java.util.List;
import java.util.Optional;

/**
 * When the store fails over (issue 28): the fence's durability is the database's. A leads with token 33 and writes;
 * B takes over with 34 and advances the fence; the PostgreSQL primary is killed right after; Patroni promotes the
 * standby; A, woken from a pause, writes with 33.
 *
 * <ul>
 *   <li>As it happened (asynchronous replication): the primary's walsender is stopped before B's advance, so the
 *       standby never receives it; the advance is acknowledged all the same, the promoted standby still says 33, and
 *       A's stale write is <b>accepted</b>.</li>
 *   <li>With Leasehold (Patroni's {@code synchronous_mode}, strict, {@code synchronous_commit = on}): the same stop
 *       makes B's advance wait instead ({@code SyncRep}); once replication resumes it is acknowledged, the promoted
 *       standby has 34, and A's write, on a fresh connection to it, is refused there by the fence
 *       ({@code StaleTokenException}); a database error met first is named with its SQLState and the write tried
 *       again ({@link LateWrite}).</li>
 * </ul>
 * Each run has a Patroni cluster of its own (two PostgreSQL 15 members, ZooKeeper as the DCS: the scenarios'
 * ZooKeeper). Needs Debian's {@code patroni}, {@code python3-kazoo} and {@code postgresql-15}, and an unprivileged
 * user; without them it is skipped with a one-line hint (and fails only when it was asked for by name).
 */
public final class DbFailoverScenario implements Scenario {

    public static final String NAME = "db-failover";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String summary() {
        return "the database fails over (Patroni): an asynchronous standby lacks the new leader's mark and a stale"
                + " write passes; synchronous replication keeps the fence";
    }

    @Override
    public Optional<String> unavailable() {
        List<String> missing = Patroni.missingPackages();
        if (!missing.isEmpty()) {
            return Optional.of("needs the Debian packages " + String.join(", ", missing) + " (missing here): "
                    + Patroni.HOW_TO_INSTALL);
        }
        if (NotRoot.isRoot()) {
            return Optional.of("Patroni and PostgreSQL refuse to run as root: run the program as an unprivileged user");
        }
        return Optional.empty();
    }

    @Override
    public List<RunResult> run(Env env) throws Exception {
        return List.of(new FailoverRun(env, false).run(), new FailoverRun(env, true).run());
    }
}
