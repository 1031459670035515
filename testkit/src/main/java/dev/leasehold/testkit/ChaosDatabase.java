package dev.leasehold.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.h2.tools.Server;

/**
 * The campaign's database, and what the nemesis may do to it: every database can be written through a JDBC URL (so
 * child JVMs can reach it too); PostgreSQL's connections can be terminated; the databases the campaign started can
 * be restarted.
 *
 * <ul>
 *   <li>{@link #embeddedPostgres()}: PostgreSQL 17 from Maven-provided binaries, with {@code synchronous_commit=on}
 *       (zonky turns it off by default, which would let a crash lose acknowledged commits). A restart is a crash:
 *       {@code SIGQUIT} to the postmaster (PostgreSQL's immediate shutdown, no checkpoint; recovery replays the WAL
 *       on start), then a new postmaster on the same data directory and port.</li>
 *   <li>{@link #h2()}: an H2 file database served by an in-process H2 TCP server. A restart is {@code SHUTDOWN}: every
 *       connection is closed and the next one reopens the database from its file. It is a clean restart, not a
 *       crash, because H2 writes commits to its file with a delay and may lose the last ones on a crash. Between
 *       restarts the database stays open ({@code DB_CLOSE_DELAY=-1}; H2's default closes it whenever its last
 *       connection closes, which with one connection per write is nearly every write), and a close never compacts
 *       ({@code MAX_COMPACT_TIME=0}): H2 2.3.232 can lose committed rows when it compacts on close (H2 issue 4247,
 *       fixed in 2.4.240 by committing after the compaction), a loss the checker would blame on the participants'
 *       writes.</li>
 *   <li>{@link #external}: a database the campaign did not start (never restarted).</li>
 *   <li>{@link #patroni}: a {@link PatroniCluster}'s primary of the moment, through its multi-host URL. Never
 *       restarted: the nemesis fails it over instead ({@link #patroniCluster()}).</li>
 * </ul>
 *
 * <p>Thread-safe: a restart and a close are serialised; connections taken during a restart fail, as they would
 * with a real crash.
 */
public abstract class ChaosDatabase implements AutoCloseable {

    /** @return a data source for this JVM (a new connection per call; no pool) */
    public abstract DataSource dataSource();

    /** @return the URL other processes (child JVMs) reach the same database with */
    public abstract String jdbcUrl();

    /** @return the database user, or null */
    public String user() {
        return null;
    }

    /** @return the database password, or null */
    public String password() {
        return null;
    }

    /** @return what it is, for a report line, e.g. {@code PostgreSQL 17 (embedded)} */
    public abstract String label();

    /** @return whether it is PostgreSQL (its connections can be terminated with {@code pg_terminate_backend}) */
    public abstract boolean postgres();

    /** @return the Patroni cluster behind this database, whose primary the nemesis can kill; empty for the others */
    public Optional<PatroniCluster> patroniCluster() {
        return Optional.empty();
    }

    /** @return whether {@link #restart()} works: only for a database started here */
    public boolean restartable() {
        return false;
    }

    /**
     * Stops the database (how: see the class comment) and starts it again; returns when it accepts connections.
     *
     * @throws IOException                   if PostgreSQL does not stop or start again
     * @throws SQLException                  if H2 does not shut down or reopen
     * @throws InterruptedException          if interrupted while waiting for the stop
     * @throws UnsupportedOperationException if the database was not started here
     */
    public void restart() throws IOException, SQLException, InterruptedException {
        throw new UnsupportedOperationException("the campaign did not start " + label() + "; it cannot restart it");
    }

    @Override
    public void close() throws IOException {}

    /**
     * Starts PostgreSQL 17 from Maven-provided binaries in a temporary data directory (deleted on close).
     *
     * @return the running database
     * @throws IOException           if PostgreSQL does not start
     * @throws IllegalStateException if this JVM runs as root (PostgreSQL refuses to)
     */
    public static ChaosDatabase embeddedPostgres() throws IOException {
        NotRoot.require("run as an unprivileged user, or use h2() or external()");
        return new Postgres();
    }

    /**
     * Starts an H2 file database in a temporary directory, served over TCP (deleted on close).
     *
     * @return the running database
     * @throws SQLException if H2's TCP server does not start
     * @throws IOException  if the temporary directory cannot be made
     */
    public static ChaosDatabase h2() throws SQLException, IOException {
        return H2.start();
    }

    /**
     * A database someone else runs: never restarted.
     *
     * @param url      its JDBC URL
     * @param user     its user, or null
     * @param password its password, or null
     * @return the database, not yet connected to
     */
    public static ChaosDatabase external(String url, String user, String password) {
        return new ByUrl(url, user, password);
    }

    /**
     * The primary of {@code cluster}, whichever member it is at the moment ({@link PatroniCluster#jdbcUrl()}: a
     * multi-host URL with {@code targetServerType=primary}). Closing it leaves the cluster running: its owner closes
     * it.
     *
     * @param cluster a running cluster
     * @return the database
     */
    public static ChaosDatabase patroni(PatroniCluster cluster) {
        return new OnPatroni(cluster);
    }

    private static final class OnPatroni extends ByUrl {
        private final PatroniCluster cluster;

        OnPatroni(PatroniCluster cluster) {
            super(cluster.jdbcUrl(), null, null);
            this.cluster = cluster;
        }

        @Override
        public String label() {
            return "PostgreSQL 15 on Patroni (" + cluster.members().size() + " members, "
                    + (cluster.synchronous() ? "synchronous_mode strict" : "asynchronous replication") + ")";
        }

        @Override
        public Optional<PatroniCluster> patroniCluster() {
            return Optional.of(cluster);
        }
    }

    private static final class Postgres extends ChaosDatabase {
        private final Path dataDirectory = Files.createTempDirectory("leasehold-chaos-pg");
        private final String password = LockedPostgres.newPassword();
        private EmbeddedPostgres postgres;
        private final DataSource ds;

        Postgres() throws IOException {
            // the port is kept across restarts, never handed out again; only the password lets anyone in
            postgres = LockedPostgres.start(builder(DrawnPorts.one()), password);
            ds = postgres.getPostgresDatabase();
        }

        private EmbeddedPostgres.Builder builder(int port) {
            return PatientPostgres.builder()
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setServerConfig("synchronous_commit", "on");
        }

        @Override
        public DataSource dataSource() {
            return ds;
        }

        @Override
        public String jdbcUrl() {
            return postgres.getJdbcUrl(LockedPostgres.USER, "postgres"); // no password in it: see password()
        }

        @Override
        public String user() {
            return LockedPostgres.USER;
        }

        @Override
        public String password() {
            return password;
        }

        @Override
        public String label() {
            return "PostgreSQL 17 (embedded)";
        }

        @Override
        public boolean postgres() {
            return true;
        }

        @Override
        public boolean restartable() {
            return true;
        }

        @Override
        public synchronized void restart() throws IOException, InterruptedException {
            long pid = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid"))
                    .get(0)
                    .trim());
            ProcessHandle postmaster = ProcessHandle.of(pid)
                    .orElseThrow(() -> new IllegalStateException("the postmaster " + pid + " is not running"));
            ChildJvm.signal("-QUIT", pid); // PostgreSQL's immediate shutdown
            try {
                postmaster.onExit().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("the postmaster " + pid + " did not exit within 30 s of SIGQUIT", e);
            }
            int port = postgres.getPort();
            postgres.close(); // releases zonky's lock on the data directory; its pg_ctl stop finds nothing to stop
            postgres = LockedPostgres.start(builder(port), password);
        }

        @Override
        public synchronized void close() throws IOException {
            try {
                postgres.close();
            } finally {
                delete(dataDirectory);
            }
        }
    }

    /** A database reached through a JDBC URL, the campaign's own or not. */
    private static class ByUrl extends ChaosDatabase {
        private final String url;
        private final String user;
        private final String password;
        private final DataSource ds;

        ByUrl(String url, String user, String password) {
            this.url = url;
            this.user = user;
            this.password = password;
            this.ds = new SimpleDataSource(url, user, password);
        }

        @Override
        public DataSource dataSource() {
            return ds;
        }

        @Override
        public String jdbcUrl() {
            return url;
        }

        @Override
        public String user() {
            return user;
        }

        @Override
        public String password() {
            return password;
        }

        /** The URL with its password masked ({@code password=}/{@code pwd=} parameters, {@code user:password@}). */
        @Override
        public String label() {
            return url.replaceAll("(?i)((?:password|pwd)=)[^&;]*", "$1***")
                    .replaceAll("//([^:/@]+):[^@/]*@", "//$1:***@");
        }

        @Override
        public boolean postgres() {
            return url.startsWith("jdbc:postgresql:");
        }
    }

    private static final class H2 extends ByUrl {
        private static final String USER = "leasehold";
        private final Path directory;
        private final Server server;

        private H2(Path directory, Server server, String password) {
            super(
                    "jdbc:h2:tcp://127.0.0.1:" + server.getPort()
                            + "/chaos;LOCK_TIMEOUT=10000;DB_CLOSE_DELAY=-1;MAX_COMPACT_TIME=0",
                    USER,
                    password);
            this.directory = directory;
            this.server = server;
        }

        /**
         * Creates the database in its file first, owned by {@link #USER} with a random password, and only then
         * starts the server, without {@code -ifNotExists}: a client of the server can open only that database, and
         * only with the password (with {@code -ifNotExists} any local process could create a database of its own
         * there, as its administrator, and run Java code in this JVM with {@code CREATE ALIAS}).
         */
        static H2 start() throws SQLException, IOException {
            Path directory = Files.createTempDirectory("leasehold-chaos-h2");
            String password = LockedPostgres.newPassword();
            try (Connection c = DriverManager.getConnection(
                    "jdbc:h2:" + directory.resolve("chaos").toAbsolutePath(), USER, password)) {
                c.isValid(5); // the file now exists, with its administrator
            }
            return new H2(directory, LocalH2.tcpServer("-baseDir", directory.toString()), password);
        }

        @Override
        public String label() {
            return "H2 (file, over TCP)";
        }

        @Override
        public boolean restartable() {
            return true;
        }

        @Override
        public void restart() throws SQLException {
            try (Connection c = dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("SHUTDOWN");
            }
            try (Connection c = dataSource().getConnection()) {
                c.isValid(5); // reopened from its file
            }
        }

        @Override
        public void close() throws IOException {
            try (Connection c = dataSource().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("SHUTDOWN"); // it stays open after its last connection: close it before its files go
            } catch (SQLException e) {
                // already closed or unreachable: the server stops anyway
            } finally {
                server.stop();
                delete(directory);
            }
        }
    }

    private static void delete(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
