package dev.leasehold.scenarios.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * db-scheduler's side of {@code bench claims}: {@code items} no-op one-time tasks, all due now, executed by a
 * scheduler with {@code workers} threads and everything else at db-scheduler's defaults (its default polling strategy,
 * fetch, with its default limits). Its table is created from the PostgreSQL DDL that db-scheduler documents, under a
 * prefixed name. Not thread-safe: one run at a time.
 */
final class DbSchedulerRun {

    private static final String TASK = "noop";

    private final DataSource pool;
    private final String table;

    DbSchedulerRun(DataSource pool, String prefix) throws SQLException {
        this.pool = pool;
        this.table = prefix + "scheduled_tasks";
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + table + " ("
                    + " task_name TEXT NOT NULL,"
                    + " task_instance TEXT NOT NULL,"
                    + " task_data BYTEA,"
                    + " execution_time TIMESTAMP WITH TIME ZONE NOT NULL,"
                    + " picked BOOLEAN NOT NULL,"
                    + " picked_by TEXT,"
                    + " last_success TIMESTAMP WITH TIME ZONE,"
                    + " last_failure TIMESTAMP WITH TIME ZONE,"
                    + " consecutive_failures INT,"
                    + " last_heartbeat TIMESTAMP WITH TIME ZONE,"
                    + " version BIGINT NOT NULL,"
                    + " priority SMALLINT,"
                    + " PRIMARY KEY (task_name, task_instance))");
            s.execute("CREATE INDEX IF NOT EXISTS " + table + "_execution_time_idx ON " + table + " (execution_time)");
            s.execute("CREATE INDEX IF NOT EXISTS " + table + "_last_heartbeat_idx ON " + table + " (last_heartbeat)");
            s.execute("CREATE INDEX IF NOT EXISTS " + table + "_priority_execution_time_idx ON " + table
                    + " (priority DESC, execution_time ASC)");
        }
    }

    /**
     * Schedules {@code items} executions (one INSERT, not timed), starts the scheduler and times until every one ran
     * and its row is gone (db-scheduler deletes a one-time task's row when it completes).
     *
     * @return nanoseconds per item
     * @throws IllegalStateException if an item ran twice or not at all
     */
    long run(int items, int workers) throws Exception {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        CountDownLatch allRan = new CountDownLatch(items);
        OneTimeTask<Void> task = Tasks.oneTime(TASK).execute((instance, context) -> {
            if (runs.computeIfAbsent(instance.getId(), k -> new AtomicInteger()).incrementAndGet() == 1) {
                allRan.countDown();
            }
        });
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DELETE FROM " + table);
            s.execute("INSERT INTO " + table + " (task_name, task_instance, execution_time, picked, version) SELECT '"
                    + TASK + "', 'item-' || x, now(), false, 1 FROM generate_series(1, " + items + ") AS g(x)");
        }
        Scheduler scheduler =
                Scheduler.create(pool, task).tableName(table).threads(workers).build();
        long start = System.nanoTime();
        long elapsed;
        scheduler.start();
        try {
            if (!allRan.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("db-scheduler ran " + runs.size() + " of " + items + " items");
            }
            while (remaining() > 0) {
                Thread.sleep(1); // at most one completion per worker is still being committed: look again shortly
            }
            elapsed = System.nanoTime() - start;
        } finally {
            scheduler.stop();
        }
        if (runs.size() != items || runs.values().stream().anyMatch(n -> n.get() != 1)) {
            throw new IllegalStateException("db-scheduler: " + runs.size() + " of " + items + " items ran, "
                    + runs.values().stream().filter(n -> n.get() != 1).count() + " of them not exactly once");
        }
        return elapsed / items;
    }

    private long remaining() throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
