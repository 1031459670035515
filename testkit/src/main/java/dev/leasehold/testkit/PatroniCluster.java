package dev.leasehold.testkit;

import java.io.Closeable;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * A PostgreSQL 15 cluster of 2 or 3 members on loopback, managed by Debian's Patroni with ZooKeeper as its DCS, whose
 * primary can be killed: the store's failover, for real. Asynchronous streaming replication, or Patroni's
 * {@code synchronous_mode} (strict, {@code synchronous_commit = on}); see {@link PatroniConfig}.
 *
 * <pre>{@code
 * try (PatroniCluster cluster = PatroniCluster.start(PatroniConfig.of(zk.getConnectString(), dir))) {
 *     DataSource ds = cluster.dataSource();           // multi-host URL, targetServerType=primary
 *     cluster.pauseReplication();                     // the standby receives nothing from now on
 *     ... commit on the primary ...                   // acknowledged; the standby lacks it (asynchronous mode)
 *     PatroniMember old = cluster.killPrimary();      // SIGKILL of the postmaster and its children
 *     cluster.awaitNewPrimary(old, Duration.ofSeconds(60));
 * }
 * }</pre>
 *
 * <p>Patroni and PostgreSQL refuse to run as root: {@link #start} fails with a clear message if this JVM is root, and
 * with the missing packages' names if {@link Patroni#missingPackages()} is not empty. The members run with a clean
 * environment (a {@code PGPASSWORD} inherited by Patroni breaks replication). Each cluster has a scope of its own in
 * ZooKeeper, so several can share one ZooKeeper.
 *
 * <p>Thread-safe for reads; drive the faults from one thread.
 */
public final class PatroniCluster implements Closeable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final PatroniConfig config;
    private final List<PatroniMember> members;
    private final String password;
    private final List<Long> pausedWalsenders = new ArrayList<>();
    /** The replication mode now: the configuration's, until {@link #setSynchronous} changed it. */
    private volatile boolean synchronous;

    private PatroniCluster(PatroniConfig config, List<PatroniMember> members, String password) {
        this.config = config;
        this.synchronous = config.synchronous();
        this.members = List.copyOf(members);
        this.password = password;
    }

    /**
     * Starts every member, then waits until one is the primary and every other streams from it (in synchronous mode:
     * until one is its synchronous standby).
     *
     * @param config the cluster
     * @return the running cluster
     * @throws IllegalStateException if this JVM runs as root, or a package is missing ({@link Patroni#hint()})
     * @throws IOException           if the cluster did not come up within 90 s (the members' logs' tails in the
     *                               message); everything started is stopped
     */
    public static PatroniCluster start(PatroniConfig config) throws IOException {
        NotRoot.require("Patroni and PostgreSQL refuse to run as root: run the JVM as an unprivileged user");
        if (!Patroni.available()) {
            throw new IllegalStateException("a Patroni cluster " + Patroni.hint());
        }
        Files.createDirectories(config.directory());
        ownerOnly(config.directory());
        HexFormat hex = HexFormat.of();
        SecureRandom random = new SecureRandom();
        String scope = "leasehold-" + hex.formatHex(random.generateSeed(4));
        String superuser = hex.formatHex(random.generateSeed(8));
        String replication = hex.formatHex(random.generateSeed(8));
        int[] ports = freePorts(config.members() * 2);
        List<PatroniMember> members = new ArrayList<>();
        for (int i = 0; i < config.members(); i++) {
            Path dir = config.directory().resolve(scope + "-pg" + i);
            Files.createDirectories(dir);
            ownerOnly(dir);
            members.add(new PatroniMember("pg" + i, ports[2 * i], ports[2 * i + 1], dir));
        }
        PatroniCluster cluster = new PatroniCluster(config, members, superuser);
        try {
            for (PatroniMember member : members) {
                member.start(PatroniYaml.of(config, scope, member, superuser, replication));
            }
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            PatroniMember primary = cluster.awaitPrimary(Optional.empty(), deadline);
            cluster.awaitStandbys(primary, deadline);
            return cluster;
        } catch (IOException | RuntimeException e) {
            String logs = cluster.logTails();
            cluster.close();
            throw new IOException("the Patroni cluster did not start: " + e.getMessage() + logs, e);
        }
    }

    /** @return the configuration it was started with */
    public PatroniConfig config() {
        return config;
    }

    /**
     * @return whether replication is synchronous now: as started ({@link PatroniConfig#synchronous()}), or as the last
     *     {@link #setSynchronous} set it
     */
    public boolean synchronous() {
        return synchronous;
    }

    /** @return the members, in the order they were created */
    public List<PatroniMember> members() {
        return members;
    }

    /** @return the superuser the clients connect as ({@code postgres}) */
    public String user() {
        return "postgres";
    }

    /** @return the superuser's password */
    public String password() {
        return password;
    }

    /**
     * @return a PgJDBC multi-host URL over every member with {@code targetServerType=primary}, user and password: a
     *     new connection goes to whichever member is the primary now
     */
    public String jdbcUrl() {
        String hosts = members.stream()
                .map(member -> "127.0.0.1:" + member.postgresPort())
                .collect(Collectors.joining(","));
        return "jdbc:postgresql://" + hosts + "/postgres?targetServerType=primary&connectTimeout=3&user=" + user()
                + "&password=" + password;
    }

    /** @return a data source over {@link #jdbcUrl()}: a new connection per call, to the primary of the moment */
    public DataSource dataSource() {
        return new SimpleDataSource(jdbcUrl(), null, null);
    }

    /**
     * @param member a member
     * @return a data source connected to that member only (for reading a standby, or the old primary)
     */
    public DataSource dataSource(PatroniMember member) {
        return new SimpleDataSource(
                "jdbc:postgresql://127.0.0.1:" + member.postgresPort() + "/postgres?connectTimeout=3",
                user(),
                password);
    }

    /**
     * @return the member Patroni calls the primary now ({@code GET /primary} answers 200), if any
     */
    public Optional<PatroniMember> primary() {
        return members.stream().filter(PatroniMember::isPrimary).findFirst();
    }

    /**
     * Switches the cluster's replication mode through Patroni's REST API ({@code PATCH /config}: {@code
     * synchronous_mode} and {@code synchronous_mode_strict}), then waits until the primary says so: a synchronous
     * standby streams ({@code pg_stat_replication.sync_state = 'sync'}), or none is synchronous any more.
     *
     * @param synchronous true for synchronous (strict), false for asynchronous
     * @param timeout     how long to wait for the primary to apply it
     * @throws IllegalStateException if there is no primary, Patroni refused the change, or it did not apply in time
     */
    public void setSynchronous(boolean synchronous, Duration timeout) {
        PatroniMember primary = primary().orElseThrow(() -> new IllegalStateException("no primary to configure"));
        primary.patchConfig(
                "{\"synchronous_mode\": " + synchronous + ", \"synchronous_mode_strict\": " + synchronous + "}");
        this.synchronous = synchronous;
        String sync = "SELECT pid FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')";
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (query(primary, sync).isEmpty() != synchronous) {
                return;
            }
            pause();
        }
        throw new IllegalStateException("the primary " + primary.name() + " did not become "
                + (synchronous ? "synchronous" : "asynchronous") + " in time");
    }

    /**
     * Stops replication to every standby on purpose: SIGSTOP of the primary's walsenders (their pids from {@code
     * pg_stat_replication}). The standbys receive nothing more, so in asynchronous mode a commit acknowledged now is
     * on the primary only; in synchronous mode it waits ({@code wait_event SyncRep}) and is not acknowledged.
     * {@link #resumeReplication()} or {@link #killPrimary()} ends the pause.
     *
     * @return how many walsenders were stopped
     * @throws IllegalStateException if there is no primary, or no standby streams from it
     */
    public synchronized int pauseReplication() {
        PatroniMember primary = primary().orElseThrow(() -> new IllegalStateException("no primary to pause"));
        List<Long> pids = query(
                primary,
                "SELECT pid FROM pg_stat_replication WHERE state = 'streaming'"
                        + " AND application_name <> 'pg_basebackup'");
        if (pids.isEmpty()) {
            throw new IllegalStateException("no standby streams from " + primary + ": nothing to pause");
        }
        for (long pid : pids) {
            PatroniMember.signal("STOP", pid);
            pausedWalsenders.add(pid);
        }
        return pids.size();
    }

    /** Resumes the walsenders {@link #pauseReplication()} stopped (SIGCONT), those still alive. */
    public synchronized void resumeReplication() {
        for (long pid : pausedWalsenders) {
            if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent()) {
                PatroniMember.signal("CONT", pid);
            }
        }
        pausedWalsenders.clear();
    }

    /**
     * Kills the primary's PostgreSQL: SIGKILL of the postmaster, then of its children (a paused walsender included).
     * Patroni on that member lives on; with {@code primary_start_timeout 0} it gives up the leader key at once and a
     * standby is promoted (about 2 to 3 s on a 2-core machine), and the killed member later rejoins as a standby
     * (pg_rewind).
     *
     * @return the member that was killed
     * @throws IllegalStateException if there is no primary, or its PostgreSQL does not run
     */
    public synchronized PatroniMember killPrimary() {
        PatroniMember primary = primary().orElseThrow(() -> new IllegalStateException("no primary to kill"));
        if (!primary.killPostgres()) {
            throw new IllegalStateException("the primary " + primary + " has no running postmaster to kill");
        }
        pausedWalsenders.clear();
        return primary;
    }

    /**
     * Waits until a member other than {@code old} is the primary and takes connections as one ({@code
     * pg_is_in_recovery()} false).
     *
     * @param old     the member that was the primary
     * @param timeout how long to wait
     * @return the new primary
     * @throws IllegalStateException if none came within {@code timeout}
     */
    public PatroniMember awaitNewPrimary(PatroniMember old, Duration timeout) {
        return awaitPrimary(Optional.of(old), System.nanoTime() + timeout.toNanos());
    }

    /**
     * Waits until a member is the primary and takes connections as one.
     *
     * @param timeout how long to wait
     * @return the primary
     * @throws IllegalStateException if none came within {@code timeout}
     */
    public PatroniMember awaitPrimary(Duration timeout) {
        return awaitPrimary(Optional.empty(), System.nanoTime() + timeout.toNanos());
    }

    private PatroniMember awaitPrimary(Optional<PatroniMember> not, long deadline) {
        while (System.nanoTime() < deadline) {
            for (PatroniMember member : members) {
                if (not.filter(member::equals).isEmpty() && member.isPrimary() && writable(member)) {
                    return member;
                }
            }
            pause();
        }
        throw new IllegalStateException(
                "no primary" + not.map(old -> " other than " + old.name()).orElse("") + " came up in time");
    }

    /**
     * @return how many of the primary's backends wait for a synchronous standby to confirm their commit now ({@code
     *     wait_event = 'SyncRep'}): in synchronous mode with replication paused, the commits sent and not acknowledged
     * @throws IllegalStateException if there is no primary, or it cannot be queried
     */
    public int commitsWaitingForStandby() {
        PatroniMember primary = primary().orElseThrow(() -> new IllegalStateException("no primary to ask"));
        return query(primary, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
                .get(0)
                .intValue();
    }

    /**
     * Waits until every standby streams from the primary (in synchronous mode: until one is its synchronous standby),
     * as {@link #start} does: for a test that needs a standby streaming now, after a restart or a rejoin.
     *
     * @param timeout how long to wait
     * @throws IllegalStateException if there is no primary, or the standbys did not stream in time
     */
    public void awaitStandbys(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        awaitStandbys(awaitPrimary(Optional.empty(), deadline), deadline);
    }

    private void awaitStandbys(PatroniMember primary, long deadline) {
        // Only the members' own walreceivers (Patroni names them after the member): while a standby is being
        // created, pg_basebackup's WAL stream is a walsender in state 'streaming' too.
        String names = members.stream().map(member -> "'" + member.name() + "'").collect(Collectors.joining(", "));
        boolean sync = synchronous;
        String sql = "SELECT pid FROM pg_stat_replication WHERE state = 'streaming' AND application_name IN (" + names
                + ")" + (sync ? " AND sync_state IN ('sync', 'quorum')" : "");
        int wanted = sync ? 1 : members.size() - 1;
        while (System.nanoTime() < deadline) {
            try {
                // In synchronous mode Patroni fails over only to the standby its /sync key names; until it names
                // one (synchronous_standby_names is '*' meanwhile), a crashed primary is restarted in place.
                if (query(primary, sql).size() >= wanted
                        && (!sync || members.stream().anyMatch(member -> member.answers("sync")))) {
                    return;
                }
            } catch (IllegalStateException notYet) {
                // the primary may still be finishing its start
            }
            pause();
        }
        throw new IllegalStateException((sync ? "no synchronous standby" : "not every standby") + " streamed from "
                + primary.name() + " in time");
    }

    private boolean writable(PatroniMember member) {
        try (Connection c = dataSource(member).getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT pg_is_in_recovery()")) {
            return r.next() && !r.getBoolean(1);
        } catch (SQLException e) {
            return false;
        }
    }

    private List<Long> query(PatroniMember member, String sql) {
        List<Long> values = new ArrayList<>();
        try (Connection c = dataSource(member).getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                values.add(r.getLong(1));
            }
            return values;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot query " + member + ": " + e.getMessage(), e);
        }
    }

    private String logTails() {
        StringBuilder tails = new StringBuilder();
        for (PatroniMember member : members) {
            Path log = member.directory().resolve("patroni.log");
            try {
                List<String> lines = Files.readAllLines(log);
                tails.append("\n--- ")
                        .append(member.name())
                        .append(" ")
                        .append(log)
                        .append(" (last lines):\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
            } catch (IOException e) {
                tails.append("\n--- ")
                        .append(member.name())
                        .append(": no log at ")
                        .append(log);
            }
        }
        return tails.toString();
    }

    /** Stops every member at once (SIGKILL of Patroni, then of PostgreSQL's processes); the files stay. */
    @Override
    public void close() {
        resumeReplication();
        for (PatroniMember member : members) {
            member.stop();
        }
    }

    private static void pause() {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling Patroni's REST API and PostgreSQL
    }

    private static void ownerOnly(Path dir) throws IOException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    }

    private static int[] freePorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ports[i] = DrawnPorts.draw(sockets, java.net.InetAddress.getLoopbackAddress()); // none given before
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }
}
