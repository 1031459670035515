package dev.leasehold.scenarios.bench;

import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.store.Redaction;
import dev.leasehold.testkit.LockedPostgres;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import dev.leasehold.testkit.SimpleDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.zookeeper.Version;
import org.h2.jdbcx.JdbcDataSource;

/**
 * What fencing costs, measured side by side in one run against plain Curator and plain JDBC: each benchmark
 * interleaves the two sides after a warm-up and reports median, p90, p99 and the ratio of the medians. Timing is
 * never asserted; the table says which goals were met on this machine today.
 */
public final class Bench {

    public static final List<String> NAMES = List.of(
            "handoff",
            "failover",
            "herd",
            "fenced-write",
            "claims",
            "slots",
            "claim-backlog",
            "partitions",
            "shedlock",
            "locks");

    private final PrintStream out;

    public Bench(PrintStream out) {
        this.out = out;
    }

    /**
     * @param pgUrl a database for the PostgreSQL rows (--jdbc), or null to start an embedded PostgreSQL 17
     * @return the markdown report
     */
    public String run(
            Env env, List<String> names, boolean quick, String pgUrl, String user, String password, String command)
            throws Exception {
        long started = System.nanoTime();
        List<Row> rows = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        ElectionBench election = new ElectionBench(env, quick);
        EmbeddedPostgres embedded = null;
        List<DatabaseBench.Db> dbs = new ArrayList<>();
        try {
            for (String name : names) {
                out.printf(
                        "bench %s%s ... (%.0f s so far)%n",
                        name, quick ? " (quick)" : "", (System.nanoTime() - started) / 1e9);
                switch (name) {
                    case "handoff" -> rows.addAll(election.handoff());
                    case "failover" -> {
                        rows.addAll(election.failover());
                        rows.addAll(new LeaseFailoverBench(env, quick).run());
                    }
                    case "herd" -> rows.addAll(election.herd());
                    case "partitions" -> rows.addAll(new PartitionsBench(quick).run());
                    default -> {
                        if (dbs.isEmpty()) {
                            dbs.add(h2());
                            if (pgUrl == null && NotRoot.isRoot()) {
                                notes.add("PostgreSQL rows skipped: PostgreSQL refuses to run as root; run bench as"
                                        + " an unprivileged user, or give --jdbc");
                            } else if (pgUrl == null) {
                                try {
                                    // production durability: zonky turns synchronous_commit off by default
                                    // only its random password lets anyone in (zonky's initdb trusts everyone)
                                    embedded = LockedPostgres.start(
                                            PatientPostgres.builder()
                                                    .setServerConfig("synchronous_commit", "on")
                                                    .setServerConfig("fsync", "on"),
                                            LockedPostgres.newPassword());
                                    dbs.add(db(embedded.getPostgresDatabase(), true));
                                } catch (IOException | RuntimeException e) {
                                    notes.add("embedded PostgreSQL could not start (" + e.getMessage()
                                            + "); PostgreSQL rows skipped. It refuses to run as root.");
                                }
                            } else {
                                dbs.add(db(
                                        new SimpleDataSource(pgUrl, user, password),
                                        pgUrl.startsWith("jdbc:postgresql")));
                            }
                        }
                        DatabaseBench bench = new DatabaseBench(
                                quick, "lhb" + Long.toString(System.nanoTime() % 1_000_000, 36) + "_");
                        for (DatabaseBench.Db db : dbs) {
                            if (name.equals("fenced-write")) {
                                rows.addAll(bench.fencedWrite(db));
                            } else if (name.equals("claim-backlog")) {
                                rows.addAll(new ClaimBacklogBench(
                                                quick, "lhc" + Long.toString(System.nanoTime() % 1_000_000, 36) + "_")
                                        .run(db));
                            } else if (name.equals("shedlock")) {
                                if (db.postgres()) {
                                    notes.add(ShedLockBench.NOTE);
                                    rows.addAll(new ShedLockBench(
                                                    quick,
                                                    "lhs" + Long.toString(System.nanoTime() % 1_000_000, 36) + "_")
                                            .run(db));
                                }
                            } else if (name.equals("locks")) {
                                if (db.postgres()) {
                                    rows.addAll(new LocksBench(quick)
                                            .jdbc(db, "lhk" + Long.toString(System.nanoTime() % 1_000_000, 36) + "_"));
                                } else if (db.mariaDb()) {
                                    notes.add(
                                            "locks: the database rows are measured on PostgreSQL only (JdbcLockRegistry"
                                                    + " with the INT_LOCK table of spring-integration-jdbc's"
                                                    + " schema-postgresql.sql)");
                                }
                            } else if (db.postgres()) {
                                rows.addAll(
                                        name.equals("claims")
                                                ? new ClaimsBench(
                                                                quick,
                                                                "lhq" + Long.toString(System.nanoTime() % 1_000_000, 36)
                                                                        + "_")
                                                        .run(db)
                                                : bench.slots(db));
                            } else if (db.mariaDb() && name.equals("slots")) {
                                rows.addAll(bench.slots(db));
                            } else if (db.mariaDb()) {
                                notes.add("claims rows are measured on PostgreSQL only (they compare with"
                                        + " db-scheduler there); on MariaDB the contract suite covers claimUpTo");
                            }
                        }
                        if (name.equals("locks")) {
                            rows.addAll(new LocksBench(quick)
                                    .zookeeper(
                                            election.client(env.zkConnect()),
                                            election.path("locks"),
                                            env.embeddedZooKeeper() ? "one TestingServer" : "the --zk ensemble"));
                            notes.add(LocksBench.NOTE);
                        }
                    }
                }
            }
        } finally {
            election.close();
            for (DatabaseBench.Db db : dbs) {
                db.pool().close();
            }
            if (embedded != null) {
                embedded.close();
            }
        }
        StringBuilder report = new StringBuilder();
        report.append("Leasehold benchmarks")
                .append(quick ? " (--quick)" : "")
                .append(", ")
                .append(LocalDate.now())
                .append(", ")
                .append(String.format("%.0f s", (System.nanoTime() - started) / 1e9))
                .append("\n\n");
        report.append("Machine: ")
                .append(machine())
                .append("; ZooKeeper ")
                .append(Version.getFullVersion().split(",")[0])
                .append(" (")
                .append(
                        env.embeddedZooKeeper()
                                ? "embedded TestingServer, tick " + Env.TICK_MS + " ms"
                                : env.zkConnect())
                .append(")");
        for (DatabaseBench.Db db : dbs) {
            report.append("; ").append(db.label());
        }
        report.append("\n\nCommand: `")
                .append(command)
                .append("`\n\n")
                .append(Row.header())
                .append('\n');
        for (Row row : rows) {
            report.append(row.markdown()).append('\n');
        }
        for (String note : notes) {
            report.append("\nNote: ").append(note).append('\n');
        }
        return report.toString();
    }

    public static void write(Path file, String report) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, Redaction.redact(report), StandardCharsets.UTF_8);
    }

    private static DatabaseBench.Db h2() throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        // LOCK_TIMEOUT as the store's default: H2 has no per-transaction lock timeout, so the store sets and restores
        // the session's around every transaction where they differ (two statements more)
        h2.setURL("jdbc:h2:mem:bench" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT="
                + dev.leasehold.store.StoreConfig.DEFAULT_LOCK_TIMEOUT.toMillis());
        return db(h2, false);
    }

    private static DatabaseBench.Db db(DataSource ds, boolean postgres) throws SQLException {
        BenchPool pool = new BenchPool(ds, 10);
        try (Connection c = pool.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            String version = meta.getDatabaseProductVersion().split(" ")[0];
            String label = meta.getDatabaseProductName() + " " + version;
            boolean mariaDb = !postgres && !meta.getDatabaseProductName().equalsIgnoreCase("H2");
            if (mariaDb) {
                label = meta.getDatabaseProductName() + " " + version.split("-")[0]; // 10.11.19, not its build tag
            }
            if (postgres || mariaDb) {
                label += " " + durability(c, postgres);
            }
            return new DatabaseBench.Db(label, pool, postgres, mariaDb);
        }
    }

    /** How a commit is made durable, as the server says: the figures mean little without it. */
    private static String durability(Connection c, boolean postgres) throws SQLException {
        StringBuilder settings = new StringBuilder();
        for (String setting : postgres
                ? List.of("synchronous_commit", "fsync")
                : List.of("innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin")) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(postgres ? "SHOW " + setting : "SELECT @@" + setting)) {
                rs.next();
                settings.append(settings.length() == 0 ? "" : " ")
                        .append(setting)
                        .append('=')
                        .append(rs.getString(1));
            }
        }
        return settings.toString();
    }

    private static String machine() {
        long memory = 0;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            memory = os.getTotalMemorySize();
        }
        return Runtime.getRuntime().availableProcessors() + " cores, " + (memory >> 30) + " GiB, JDK "
                + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + "), "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch");
    }
}
