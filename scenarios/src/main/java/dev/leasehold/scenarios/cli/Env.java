package dev.leasehold.scenarios.cli;

import dev.leasehold.scenarios.report.Skipped;
import dev.leasehold.testkit.LocalH2;
import dev.leasehold.testkit.LockedPostgres;
import dev.leasehold.testkit.SimpleDataSource;
import dev.leasehold.testkit.TcpProxy;
import java.io.IOException;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;

/**
 * Where the scenarios run: an in-process ZooKeeper (curator-test's TestingServer, with a 100 ms tick so sessions
 * expire in seconds) and in-memory H2 by default, or a real ensemble ({@code --zk}) and database ({@code --jdbc}).
 * Closes everything it started.
 *
 * <p>Why one file of more than 300 lines: it starts and closes every embedded service on every path, and its settings
 * record is validated here; each service is a few lines.
 */
public final class Env implements AutoCloseable {

    public static final int TICK_MS = 100;
    /** Requested session timeout; a real ensemble may negotiate it up (at least 2 of its ticks). */
    public static final int SESSION_MS = 1_500;

    private static final int CONNECT_WAIT_SECONDS = 5;
    private static final String H2_USER = "leasehold";

    private final PrintStream out;
    private final List<Skipped> skipped = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final TestingServer embeddedZk;
    private final String zkConnect;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    /** Distinguishes this environment's tables and in-memory databases from any earlier run's. */
    private final String id =
            Long.toString(ThreadLocalRandom.current().nextLong(1_679_616L), 36) + NEXT_ID.incrementAndGet();

    private final List<JdbcDataSource> h2Databases = new ArrayList<>();
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    private Server h2TcpServer;

    /**
     * What the scenarios run on, checked here.
     *
     * @param zk       a ZooKeeper connect string, or null for an embedded server
     * @param jdbc     a JDBC URL, or null for in-memory H2
     * @param user     database user, or null
     * @param password database password, or null
     * @param out      where the scenarios print
     */
    public record Settings(String zk, String jdbc, String user, String password, PrintStream out) {
        public Settings {
            if (out == null) {
                throw new IllegalArgumentException("out is required");
            }
        }

        /** An embedded ZooKeeper and in-memory H2. */
        public static Settings embedded(PrintStream out) {
            return new Settings(null, null, null, null, out);
        }

        public Settings withZk(String zk) {
            return new Settings(zk, jdbc, user, password, out);
        }

        public Settings withJdbc(String jdbc, String user, String password) {
            return new Settings(zk, jdbc, user, password, out);
        }
    }

    private Env(Settings settings, TestingServer embeddedZk, String zkConnect) {
        this.out = settings.out();
        this.embeddedZk = embeddedZk;
        this.zkConnect = zkConnect;
        this.jdbcUrl = settings.jdbc();
        // in-memory H2 gets a user and a random password of its own: its TCP server (for child JVMs) must let no
        // other local process in
        this.user = settings.jdbc() == null ? H2_USER : settings.user();
        this.password = settings.jdbc() == null ? LockedPostgres.newPassword() : settings.password();
    }

    /**
     * @throws EnvException if ZooKeeper or the database cannot be reached
     */
    public static Env start(Settings settings) {
        String zk = settings.zk();
        String jdbc = settings.jdbc();
        TestingServer server = null;
        String connect = zk;
        if (zk == null) {
            try {
                server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, 0), true);
                connect = server.getConnectString();
            } catch (Exception e) {
                throw new EnvException("could not start the embedded ZooKeeper: " + e.getMessage(), e);
            }
        }
        Env env = new Env(settings, server, connect);
        try {
            env.client(connect).close();
            if (jdbc != null) {
                try (Connection c = env.dataSource("probe").getConnection()) {
                    c.isValid(CONNECT_WAIT_SECONDS);
                } catch (SQLException e) {
                    throw DatabaseErrors.connecting(jdbc, settings.user(), e);
                }
            }
        } catch (RuntimeException e) {
            env.close();
            throw e;
        }
        return env;
    }

    public PrintStream out() {
        return out;
    }

    /**
     * Says on the console that a run (or a whole scenario) is skipped and why, and keeps it for the report's summary.
     *
     * @param scenario the scenario's name
     * @param side     which of its runs
     * @param hint     why, and what would let it run
     */
    public void skip(String scenario, Skipped.Side side, String hint) {
        String which = side == Skipped.Side.AS_IT_HAPPENED
                ? ", as it happened"
                : side == Skipped.Side.WITH_LEASEHOLD ? ", with Leasehold" : "";
        out.println("  " + scenario + which + ": skipped: " + hint);
        skipped.add(new Skipped(scenario, side, hint));
    }

    /**
     * What was skipped so far, in order.
     *
     * @return the skipped runs and scenarios
     */
    public List<Skipped> skipped() {
        return List.copyOf(skipped);
    }

    /** Prints a run's verdicts, one line each. */
    public void printVerdicts(List<String> verdicts) {
        verdicts.forEach(v -> out.println("  verdict: " + v));
    }

    public String zkConnect() {
        return zkConnect;
    }

    public boolean embeddedZooKeeper() {
        return embeddedZk != null;
    }

    public String describe() {
        return "ZooKeeper "
                + (embeddedZk != null
                        ? "embedded (TestingServer, tick " + TICK_MS + " ms) at " + zkConnect
                        : "at " + zkConnect)
                + ", database " + (jdbcUrl == null ? "H2 in memory" : DatabaseErrors.redact(jdbcUrl));
    }

    /** A started client with the scenarios' session timeout, connected within 5 s. */
    public CuratorFramework client(String connectString) {
        return client(connectString, SESSION_MS);
    }

    /** A started client with the given session timeout (the server bounds it to [2, 20] of its ticks). */
    public CuratorFramework client(String connectString, int sessionMs) {
        // Keeps to the given addresses: a proxied client must not bypass its proxy.
        CuratorFramework client = TcpProxy.clientBuilder(connectString, sessionMs)
                .connectionTimeoutMs(Math.max(SESSION_MS, sessionMs))
                .retryPolicy(new RetryNTimes(10, 100))
                .build();
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected(CONNECT_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            client.close();
            throw new EnvException(
                    "cannot reach ZooKeeper at " + connectString + " within " + CONNECT_WAIT_SECONDS + " s", null);
        }
        return client;
    }

    /** A client whose connection goes through a proxy that the scenario can silence. */
    public record ProxiedClient(CuratorFramework client, TcpProxy proxy) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            client.close();
            proxy.close();
        }
    }

    public ProxiedClient proxiedClient() {
        try {
            TcpProxy proxy = TcpProxy.to(zkConnect);
            return new ProxiedClient(client(proxy.connectString()), proxy);
        } catch (IOException e) {
            throw new EnvException("could not start a TCP proxy to " + zkConnect + ": " + e.getMessage(), e);
        }
    }

    /** A unique table prefix for one run, so runs never see each other's rows. */
    public String tablePrefix() {
        return "lh" + id + "_" + runs.incrementAndGet() + "_";
    }

    /** In-memory H2 (one database per run name), or the database given with --jdbc. */
    public DataSource dataSource(String runName) {
        if (jdbcUrl != null) {
            return new SimpleDataSource(jdbcUrl, user, password);
        }
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:" + h2Name(runName) + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        h2.setUser(user); // the first connection makes it the database's administrator, with this password
        h2.setPassword(password);
        synchronized (h2Databases) {
            h2Databases.add(h2);
        }
        return h2;
    }

    /**
     * The JDBC URL other processes use to reach the same database. In-memory H2 is served to them over TCP: the
     * database is opened here first (so it exists, with its user and random password), and the server, on
     * 127.0.0.1, opens no database that does not exist ({@link LocalH2}): no other local process can create one of
     * its own there, nor enter this one without the password ({@link #user()}, {@link #password()}).
     */
    public synchronized String jdbcUrlForChildren(String runName) {
        if (jdbcUrl != null) {
            return jdbcUrl;
        }
        try (Connection c = dataSource(runName).getConnection()) {
            c.isValid(CONNECT_WAIT_SECONDS); // the in-memory database now exists until this Env closes
        } catch (SQLException e) {
            throw new EnvException(
                    "could not open the in-memory H2 database for child processes: " + e.getMessage(), e);
        }
        if (h2TcpServer == null) {
            try {
                h2TcpServer = LocalH2.tcpServer();
            } catch (SQLException e) {
                throw new EnvException("could not start H2's TCP server for child processes: " + e.getMessage(), e);
            }
        }
        return "jdbc:h2:tcp://127.0.0.1:" + h2TcpServer.getPort() + "/mem:" + h2Name(runName)
                + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    }

    private String h2Name(String runName) {
        return id + "_" + runName.replaceAll("[^A-Za-z0-9]", "_");
    }

    /** The database user: the one given, or in-memory H2's own. */
    public String user() {
        return user;
    }

    /** The database password: the one given, or in-memory H2's random one (never printed). */
    public String password() {
        return password;
    }

    /** Drops a run's tables from a real database (in-memory H2 goes away by itself). Best effort. */
    public void dropTables(DataSource ds, String prefix) {
        if (jdbcUrl == null) {
            return;
        }
        try (Connection c = ds.getConnection()) {
            List<String> tables = new ArrayList<>();
            DatabaseMetaData meta = c.getMetaData();
            try (ResultSet rs = meta.getTables(null, null, "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    String name = rs.getString("TABLE_NAME");
                    if (name.toLowerCase().startsWith(prefix)) {
                        tables.add(name);
                    }
                }
            }
            try (Statement s = c.createStatement()) {
                for (String table : tables) {
                    s.execute("DROP TABLE IF EXISTS " + table);
                }
            }
        } catch (SQLException e) {
            out.println("  (could not drop the tables of prefix " + prefix + ": " + e.getMessage() + ")");
        }
    }

    public void closeLater(AutoCloseable closeable) {
        toClose.add(closeable);
    }

    @Override
    public void close() {
        for (AutoCloseable closeable : toClose) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // closing everything is best effort
            }
        }
        synchronized (h2Databases) {
            for (JdbcDataSource h2 : h2Databases) {
                try (Connection c = h2.getConnection();
                        Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN"); // in-memory H2 lives as long as the JVM otherwise
                } catch (SQLException ignored) {
                    // already gone
                }
            }
        }
        if (h2TcpServer != null) {
            h2TcpServer.shutdown();
        }
        if (embeddedZk != null) {
            try {
                embeddedZk.close();
            } catch (IOException ignored) {
                // temp files are gone with the JVM anyway
            }
        }
    }
}
