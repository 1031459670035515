package dev.leasehold.examples.fencebench;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The bench on one database: starts the service ({@link FenceBenchApplication}) on it, waits for its grant of the
 * database lease, proves the fenced side goes through the check, measures every cell (and the references), and checks
 * the rows written.
 *
 * <p>The proof, before any cell: a newer token is made the mark of {@link Writes#PROBE} (as a new leader's
 * {@code advance} would), then the {@code @Fenced} probe with this leader's token must throw
 * {@link StaleTokenException} and leave no row. After the cells: the mark of {@link Writes#RESOURCE} is this leader's
 * token, the gate reported at least one passed check per transaction that checked, and each table holds exactly as many
 * rows as transactions ran on it.
 *
 * @param label          the database, as the rows name it (product, version, durability settings)
 * @param cells        the {@code @Fenced} cells: JPA, then JdbcTemplate, each in the order of the thread counts
 * @param references   the reference cells (none with {@code --no-references}): for each thread count, the check by
 *                     hand, then one round trip more
 * @param token        the leader's token, checked by every fenced transaction
 * @param probeRefused whether the probe with a lower token than the mark was refused, writing nothing
 * @param mark         the mark of {@link Writes#RESOURCE} after the cells
 * @param passedChecks the checks of {@link Writes#RESOURCE} the gate reported as passed
 * @param checkedWrites the transactions that checked {@link Writes#RESOURCE} ({@code @Fenced} and by hand), warm-up
 *                     included
 */
record DatabaseRun(
        String label,
        List<Cell> cells,
        List<Cell> references,
        long token,
        boolean probeRefused,
        long mark,
        long passedChecks,
        long checkedWrites) {

    static final String JPA = "JPA save";
    static final String JDBC = "JdbcTemplate insert";
    static final String BY_HAND = "FenceGate.check by hand (no advice, no backstop)";
    static final String ROUND_TRIP = "select 1 first (one round trip more)";

    /** Starts the service on {@code url}, measures, and closes it. */
    static DatabaseRun on(
            String url, String user, String password, String where, BenchOptions options, PrintStream progress)
            throws Exception {
        long started = System.nanoTime();
        int maxThreads =
                options.threads().stream().mapToInt(Integer::intValue).max().orElse(1);
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + url,
                // every bench thread a connection, and two for the lease's renewals
                "spring.datasource.hikari.maximum-pool-size=" + (maxThreads + 2),
                "spring.jpa.hibernate.ddl-auto=update",
                "spring.jpa.open-in-view=false",
                "spring.main.banner-mode=off",
                "leasehold.election.backend=jdbc",
                "leasehold.store.table-prefix=fb_",
                "logging.level.root=warn"));
        if (user != null) {
            properties.add("spring.datasource.username=" + user);
        }
        if (password != null) {
            properties.add("spring.datasource.password=" + password);
        }
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(FenceBenchApplication.class)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run()) {
            progress.printf(Locale.ROOT, "  the service started in %.1f s%n", (System.nanoTime() - started) / 1e9);
            return measure(context, where, options, progress);
        }
    }

    private static DatabaseRun measure(
            ConfigurableApplicationContext context, String where, BenchOptions options, PrintStream progress)
            throws Exception {
        long started = System.nanoTime();
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        FenceGate gate = context.getBean(FenceGate.class);
        Writes writes = context.getBean(Writes.class);
        PassedChecks checks = context.getBean(PassedChecks.class);
        String label = label(context.getBean(DataSource.class), jdbc) + where;
        long token = context.getBean(Leader.class).awaitGrant(60);
        progress.printf(
                Locale.ROOT,
                "  %s: granted token %d after %.1f s; measuring%n",
                label,
                token,
                (System.nanoTime() - started) / 1e9);
        jdbc.execute("create table if not exists " + Writes.JDBC_TABLE + " (id bigint generated always as identity"
                + " primary key, thread int not null, token bigint not null)");
        jdbc.execute("truncate table " + Writes.JDBC_TABLE + ", fb_jpa_entry");

        // the proof that @Fenced is applied in this context: a newer leader holds the probe's mark
        gate.advance(Writes.PROBE, token + 1, "fence-bench probe: a newer leader");
        boolean refused;
        try {
            writes.probe(token);
            refused = false;
        } catch (StaleTokenException expected) {
            refused = true;
        }
        refused &= count("select count(*) from " + Writes.JDBC_TABLE + " where thread = -1", jdbc) == 0;

        // as a new leader does before it writes: the mark is its token, and every check takes the shared path
        gate.advance(Writes.RESOURCE, token, "fence-bench leader");
        long checksBefore = checks.passed();
        List<Cell> cells = new ArrayList<>();
        for (int threads : options.threads()) {
            cells.add(Cell.measure(
                    JPA,
                    Cell.FENCED,
                    threads,
                    options,
                    thread -> writes.jpaPlain(thread, token),
                    thread -> writes.jpaFenced(thread, token)));
        }
        for (int threads : options.threads()) {
            cells.add(Cell.measure(
                    JDBC,
                    Cell.FENCED,
                    threads,
                    options,
                    thread -> writes.jdbcPlain(thread, token),
                    thread -> writes.jdbcFenced(thread, token)));
        }
        List<Cell> references = new ArrayList<>();
        for (int threads : options.references() ? options.threads() : List.<Integer>of()) {
            references.add(Cell.measure(
                    JDBC,
                    BY_HAND,
                    threads,
                    options,
                    thread -> writes.jdbcPlain(thread, token),
                    thread -> writes.jdbcCheckedByHand(thread, token)));
            references.add(Cell.measure(
                    JDBC,
                    ROUND_TRIP,
                    threads,
                    options,
                    thread -> writes.jdbcPlain(thread, token),
                    thread -> writes.jdbcOneMoreRoundTrip(thread, token)));
        }
        progress.printf(Locale.ROOT, "  measured in %.1f s%n", (System.nanoTime() - started) / 1e9);
        long passed = checks.passed() - checksBefore;
        long mark = gate.highestToken(Writes.RESOURCE).orElse(0);
        long jpaRows = 0;
        long jdbcRows = 0;
        long checked = 0;
        for (Cell cell : concat(cells, references)) {
            long rows = cell.plainAll() + cell.otherAll();
            jpaRows += cell.kind().equals(JPA) ? rows : 0;
            jdbcRows += cell.kind().equals(JDBC) ? rows : 0;
            checked += cell.fenced() || cell.variant().equals(BY_HAND) ? cell.otherAll() : 0;
        }
        expectRows("fb_jpa_entry", jpaRows, jdbc);
        expectRows(Writes.JDBC_TABLE, jdbcRows, jdbc);
        jdbc.execute("truncate table " + Writes.JDBC_TABLE + ", fb_jpa_entry");
        return new DatabaseRun(label, cells, references, token, refused, mark, passed, checked);
    }

    private static List<Cell> concat(List<Cell> a, List<Cell> b) {
        List<Cell> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static long count(String sql, JdbcTemplate jdbc) {
        Long count = jdbc.queryForObject(sql, Long.class);
        return count == null ? 0 : count;
    }

    /** Every transaction counted wrote its row, and nothing else did (the probe wrote none). */
    private static void expectRows(String table, long expected, JdbcTemplate jdbc) {
        long rows = count("select count(*) from " + table, jdbc);
        if (rows != expected) {
            throw new IllegalStateException(
                    table + " holds " + rows + " rows after " + expected + " transactions that each wrote one");
        }
    }

    /** "PostgreSQL 17.6 synchronous_commit=on fsync=on": the figures mean little without how a commit is durable. */
    private static String label(DataSource ds, JdbcTemplate jdbc) throws SQLException {
        String product;
        try (Connection c = ds.getConnection()) {
            DatabaseMetaData meta = c.getMetaData();
            product = meta.getDatabaseProductName() + " "
                    + meta.getDatabaseProductVersion().split(" ")[0];
        }
        return product + " synchronous_commit=" + jdbc.queryForObject("show synchronous_commit", String.class)
                + " fsync=" + jdbc.queryForObject("show fsync", String.class);
    }
}
