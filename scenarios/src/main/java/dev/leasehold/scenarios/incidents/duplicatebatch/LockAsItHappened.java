package dev.leasehold.scenarios.incidents.duplicatebatch;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The lock form as it happened: Spring Integration's own {@link JdbcLockRegistry} (its {@code INT_LOCK} table, one
 * {@link DefaultLockRepository} per pod, ttl 2 s) around the push. Its lock expires by ttl while held and hands out
 * no token, so accounting cannot tell pod-A's late push from pod-B's: batch-0 is pushed twice. pod-A's {@code unlock}
 * then throws {@code ConcurrentModificationException}: after the push, too late to matter.
 */
final class LockAsItHappened {

    static final String TITLE = "lock without a token";

    private LockAsItHappened() {}

    static RunResult run(Env env) throws Exception {
        env.out().println("-- " + TITLE + ": Spring Integration's JdbcLockRegistry, ttl 2 s, around the push");
        DataSource ds = env.dataSource(DuplicateBatchScenario.NAME + "-lock");
        String prefix = env.tablePrefix();
        List<DefaultLockRepository> repositories = new ArrayList<>();
        try {
            createLockTable(ds, prefix);
            Accounting accounting = Accounting.create(ds, prefix);
            Timeline timeline =
                    new Timeline(DuplicateBatchScenario.NAME + ": " + TITLE, env.out(), List.of("pod-A", "pod-B"));
            LockedPush push = new LockedPush() {
                @Override
                public long taken(String pod, Lock lock) {
                    return 0; // JdbcLockRegistry's lock has no token to give
                }

                @Override
                public boolean push(String pod, String batch, long token) throws SQLException {
                    boolean again = !accounting.pushers(batch).isEmpty();
                    accounting.push(batch, pod, 0);
                    String text = "pushes " + batch + " to accounting (the lock was its only guard)";
                    if (again) {
                        timeline.problem(pod, text + ": pushed a second time", batch);
                    } else {
                        timeline.info(pod, text, batch);
                    }
                    return true;
                }
            };
            LockTicks.Outcome outcome = LockTicks.run(
                    timeline,
                    registry(ds, prefix, "pod-A", repositories),
                    registry(ds, prefix, "pod-B", repositories),
                    accounting,
                    push,
                    "lock (ttl 2 s)");
            timeline.finish();
            List<String> pushers = accounting.pushers("batch-0");
            List<String> verdicts = List.of(
                    "pushes of batch-0 to accounting: " + pushers.size() + " (" + String.join(", ", pushers) + ")",
                    "pod-B got the lock while pod-A still ran its tick: yes (try " + outcome.podBTries() + ")",
                    "pod-A's unlock after its push: " + outcome.podAUnlock());
            env.printVerdicts(verdicts);
            return new RunResult(
                    DuplicateBatchScenario.NAME,
                    TITLE,
                    true,
                    timeline,
                    verdicts,
                    pushers.equals(List.of("pod-A", "pod-B")),
                    "batch-0 pushed by both pods under the lock");
        } finally {
            repositories.forEach(DefaultLockRepository::close);
            env.dropTables(ds, prefix);
        }
    }

    /** A pod's registry, as a Spring context would build it: its own client id, the run's table, ttl 2 s. */
    private static JdbcLockRegistry registry(
            DataSource ds, String prefix, String pod, List<DefaultLockRepository> repositories) {
        DefaultLockRepository repository = new DefaultLockRepository(ds, pod);
        repository.setPrefix(prefix);
        repository.setTransactionManager(new DataSourceTransactionManager(ds));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repositories.add(repository);
        return new JdbcLockRegistry(repository, LockTicks.TTL);
    }

    /** Spring Integration's lock table (its schema-*.sql), under the run's prefix. */
    private static void createLockTable(DataSource ds, String prefix) throws SQLException {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            String product = c.getMetaData().getDatabaseProductName().toLowerCase();
            String timestamp = product.contains("mysql") || product.contains("mariadb") ? "DATETIME(6)" : "TIMESTAMP";
            s.execute("CREATE TABLE " + prefix + "LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
                    + " CLIENT_ID CHAR(36), CREATED_DATE " + timestamp + " NOT NULL, EXPIRED_AFTER " + timestamp
                    + " NOT NULL, PRIMARY KEY (LOCK_KEY, REGION))");
        }
    }
}
