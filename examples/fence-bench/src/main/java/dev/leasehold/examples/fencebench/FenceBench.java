package dev.leasehold.examples.fencebench;

import dev.leasehold.store.Redaction;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The bench: on an embedded PostgreSQL 17 (started as production runs it: {@code synchronous_commit=on},
 * {@code fsync=on}), and on the database of {@code --jdbc} when given (e.g. PgBouncer in transaction mode), each kind
 * of write at each thread count, plain and {@code @Fenced} side by side ({@link Cell}), one row per side, the ratio of
 * medians on the fenced row. The goal, from issue 43: at 8 threads the fenced transaction keeps at least
 * {@value #GOAL} of the plain one's throughput; the row says "met" or "MISSED". Timing is never asserted.
 */
final class FenceBench {

    static final String BENCHMARK = "fenced-transaction";

    static final double GOAL = 0.90;

    static final int GOAL_THREADS = 8;

    /**
     * What a run measured.
     *
     * @param databases one run per database measured
     * @param rows      the table's rows, in order
     * @param report    the markdown report: header, table, notes
     */
    record Result(List<DatabaseRun> databases, List<Row> rows, String report) {}

    private FenceBench() {}

    /**
     * Runs the bench.
     *
     * @param progress told what is being measured, as it goes
     */
    static Result run(BenchOptions options, PrintStream progress) throws Exception {
        long started = System.nanoTime();
        double loadBefore = loadAverage();
        List<DatabaseRun> databases = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            notes.add("embedded PostgreSQL skipped: it refuses to run as root; run the bench as an unprivileged user");
        } else {
            progress.println("fence-bench: embedded PostgreSQL 17 ...");
            long starting = System.nanoTime();
            // production durability: zonky turns synchronous_commit off by default
            try (EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setPGStartupWait(Duration.ofSeconds(60)) // zonky waits 10 s, too little on a busy machine
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("fsync", "on")
                    .start()) {
                progress.printf(Locale.ROOT, "  started in %.1f s%n", (System.nanoTime() - starting) / 1e9);
                databases.add(
                        DatabaseRun.on(postgres.getJdbcUrl("postgres", "postgres"), null, null, "", options, progress));
            }
        }
        if (options.jdbcUrl() != null) {
            progress.println("fence-bench: --jdbc ...");
            databases.add(DatabaseRun.on(
                    options.jdbcUrl(), options.user(), options.password(), ", --jdbc", options, progress));
        }
        List<Row> rows = new ArrayList<>();
        for (DatabaseRun database : databases) {
            for (Cell cell : database.cells()) {
                rows.addAll(rows(cell, database.label()));
            }
            for (Cell cell : database.references()) {
                rows.addAll(rows(cell, database.label()));
            }
            notes.add(proof(database));
        }
        String report = report(options, started, loadBefore, databases, rows, notes);
        return new Result(databases, rows, Redaction.redact(report));
    }

    /** The cell's two rows: plain, then the variant with the ratio and, for {@code @Fenced} at 8 threads, the goal. */
    static List<Row> rows(Cell cell, String label) {
        String where = " (" + label + ", " + cell.threads() + " thread" + (cell.threads() > 1 ? "s" : "") + ")";
        String goal = "";
        if (cell.fenced() && cell.threads() == GOAL_THREADS) {
            String text = String.format(Locale.ROOT, ">= %.2f", GOAL);
            goal = (cell.ratio() >= GOAL ? "met: " : "MISSED: ") + text;
        }
        return List.of(
                Row.of(BENCHMARK, cell.kind() + " in @Transactional" + where, cell.plain()),
                Row.of(BENCHMARK, cell.kind() + " in @Transactional, " + cell.variant() + where, cell.other())
                        .withRatio(cell.ratio(), goal));
    }

    private static String proof(DatabaseRun run) {
        StringBuilder transactions = new StringBuilder();
        for (Cell cell : run.cells()) {
            transactions.append(String.format(
                    Locale.ROOT,
                    "; %s, %d thread%s: %,d / %,d",
                    cell.kind(),
                    cell.threads(),
                    cell.threads() > 1 ? "s" : "",
                    cell.plain().transactions(),
                    cell.other().transactions()));
        }
        return String.format(
                Locale.ROOT,
                "%s: the leader's token %d; the @Fenced probe with a lower token than the mark was %s; the mark of"
                        + " %s after the cells: %d; %,d checks passed for %,d transactions that checked, warm-up"
                        + " included (@Fenced: the check and the backstop's before the commit; by hand: the check)."
                        + " Transactions measured, plain / @Fenced%s.",
                run.label(),
                run.token(),
                run.probeRefused() ? "refused, writing nothing" : "NOT REFUSED",
                Writes.RESOURCE,
                run.mark(),
                run.passedChecks(),
                run.checkedWrites(),
                transactions);
    }

    private static String report(
            BenchOptions options,
            long started,
            double loadBefore,
            List<DatabaseRun> databases,
            List<Row> rows,
            List<String> notes) {
        StringBuilder report = new StringBuilder();
        report.append(String.format(
                Locale.ROOT,
                "Leasehold fence bench, %s, %.0f s%n%nMachine: %s; load average %.1f before, %.1f after%n%n"
                        + "Command: `fence-bench %s`%n%n",
                LocalDate.now(),
                (System.nanoTime() - started) / 1e9,
                machine(),
                loadBefore,
                loadAverage(),
                options.command()));
        report.append(Row.HEADER).append('\n');
        for (Row row : rows) {
            report.append(row.markdown()).append('\n');
        }
        for (String note : notes) {
            report.append("\nNote: ").append(note).append('\n');
        }
        if (databases.isEmpty()) {
            report.append("\nNothing measured.\n");
        }
        return report.toString();
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
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
