package dev.leasehold.testkit;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * A ZooKeeper ensemble to test against: a {@link TestingCluster} it starts (whose servers it may kill and restart),
 * a {@link ProcessEnsemble} of real server processes it starts (whose servers it may also freeze with
 * {@code kill -STOP}), or an ensemble it was given ({@code host:port[,...][/chroot]}, never harmed). It tells which
 * server is the quorum leader by asking each server {@code srvr}.
 *
 * <p>Not thread-safe: one thread drives it (killing and restarting servers of one cluster from several threads
 * races in {@code TestingCluster}).
 */
public final class Ensemble implements Closeable {

    private final TestingCluster cluster;
    private final ProcessEnsemble processes;
    private final List<InstanceSpec> processSpecs;
    private final ConnectString connect;

    private Ensemble(TestingCluster cluster, ProcessEnsemble processes, ConnectString connect) {
        this.cluster = cluster;
        this.processes = processes;
        this.connect = connect;
        List<InstanceSpec> specs = new ArrayList<>();
        if (processes != null) {
            for (ProcessEnsemble.Server server : processes.servers()) {
                specs.add(new InstanceSpec(
                        server.dir().resolve("data").toFile(),
                        server.clientPort(),
                        server.electionPort(),
                        server.quorumPort(),
                        false,
                        server.id(),
                        processes.tickMs(),
                        0,
                        null,
                        "127.0.0.1"));
            }
        }
        this.processSpecs = List.copyOf(specs);
    }

    /**
     * Starts {@code size} server processes of the installed ZooKeeper ({@link ProcessEnsemble}), owned and closed by
     * the returned ensemble.
     *
     * @param zooKeeper the installed server
     * @param size      how many servers, 1 to 7
     * @param tickMs    the servers' tick in milliseconds, 10 to 10,000
     * @return the running ensemble
     * @throws IllegalArgumentException as {@link ProcessEnsemble#start}
     * @throws IOException              if no quorum serves within 60 s
     */
    public static Ensemble processes(ZooKeeperPackage zooKeeper, int size, int tickMs) throws IOException {
        ProcessEnsemble started = ProcessEnsemble.start(zooKeeper, size, tickMs);
        return new Ensemble(null, started, ConnectString.parse(started.connectString()));
    }

    /**
     * Starts a cluster of {@code size} servers with this tick (sessions of 2 to 20 ticks), with the four-letter
     * words allowed so that {@link #quorumLeader()} can ask them.
     *
     * @param size   how many servers (1 or more)
     * @param tickMs the servers' tick in milliseconds (1 or more)
     * @return the running ensemble
     * @throws IllegalArgumentException if size or tickMs is below 1
     * @throws IOException              if the cluster does not start
     */
    public static Ensemble start(int size, int tickMs) throws IOException {
        if (size < 1 || tickMs < 1) {
            throw new IllegalArgumentException("an ensemble needs at least 1 server and a tick of at least 1 ms, got "
                    + size + " servers, tick " + tickMs + " ms");
        }
        allowFourLetterWords();
        List<InstanceSpec> specs = new ArrayList<>();
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (int id = 1; id <= size; id++) {
            // curator-test picks each port free, closes it and binds it later: the same port can come back twice,
            // within this cluster or to another server this JVM starts meanwhile
            InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, id, tickMs, 0);
            int tries = 1;
            while (!(distinct(ports, spec) && claimed(spec))) {
                spec.getDataDirectory().delete(); // empty: nothing ran in it
                if (tries++ == 20) {
                    throw new IOException("no three ports for ZooKeeper server " + id + " that no other server of this"
                            + " JVM was given, in 20 draws");
                }
                spec = new InstanceSpec(null, -1, -1, -1, true, id, tickMs, 0);
            }
            specs.add(spec);
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        } catch (Exception e) {
            cluster.close();
            throw new IOException("the ZooKeeper cluster did not start: " + e.getMessage(), e);
        }
        List<ConnectString.Server> servers = new ArrayList<>();
        for (InstanceSpec spec : cluster.getInstances()) {
            servers.add(new ConnectString.Server(spec.getHostname(), spec.getPort()));
        }
        return new Ensemble(cluster, null, new ConnectString(servers, ""));
    }

    /** Claims {@code spec}'s three ports for this JVM ({@link DrawnPorts}); false if any was handed out before. */
    private static boolean claimed(InstanceSpec spec) {
        boolean port = DrawnPorts.claim(spec.getPort());
        boolean election = DrawnPorts.claim(spec.getElectionPort());
        return DrawnPorts.claim(spec.getQuorumPort()) && port && election;
    }

    /** Adds {@code spec}'s three ports to {@code taken} if they differ and none is taken yet; else false. */
    private static boolean distinct(java.util.Set<Integer> taken, InstanceSpec spec) {
        java.util.Set<Integer> own =
                new java.util.HashSet<>(List.of(spec.getPort(), spec.getElectionPort(), spec.getQuorumPort()));
        if (own.size() < 3 || own.stream().anyMatch(taken::contains)) {
            return false;
        }
        taken.addAll(own);
        return true;
    }

    /**
     * An ensemble someone else runs; it is never harmed.
     *
     * @param connect {@code host:port[,host:port...][/chroot]}
     * @return the ensemble
     * @throws IllegalArgumentException if the connect string is malformed
     */
    public static Ensemble given(String connect) {
        return new Ensemble(null, null, ConnectString.parse(connect));
    }

    /**
     * Lets a server started after this call answer {@code srvr} (ZooKeeper refuses four-letter words by default).
     * Sets a system property, so call it before the servers start.
     */
    public static void allowFourLetterWords() {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*");
    }

    /** @return whether this ensemble was started here, and so may be harmed */
    public boolean owned() {
        return cluster != null || processes != null;
    }

    /** @return whether its servers are processes of their own, which {@link #freeze} can stop */
    public boolean ofProcesses() {
        return processes != null;
    }

    /**
     * @return what it is, for a summary line: "3-server TestingCluster", "3 ZooKeeper server processes", or "ensemble"
     *         and the connect string of a given one
     */
    public String describe() {
        if (cluster != null) {
            return cluster.getInstances().size() + "-server TestingCluster";
        }
        if (processes != null) {
            return processes.servers().size() + " ZooKeeper server processes";
        }
        return "ensemble " + connect;
    }

    /** @return the servers and chroot; a started cluster has no chroot */
    public ConnectString connectString() {
        return connect;
    }

    /**
     * @return every server of a started cluster or of server processes
     * @throws IllegalStateException if the ensemble was given
     */
    public List<InstanceSpec> instances() {
        return processes != null ? processSpecs : List.copyOf(cluster().getInstances());
    }

    /**
     * Kills one server of a started cluster.
     *
     * @param spec the server
     * @throws IOException           if TestingCluster fails to kill it
     * @throws InterruptedException  if interrupted meanwhile
     * @throws IllegalStateException if the ensemble was given
     */
    public void kill(InstanceSpec spec) throws IOException, InterruptedException {
        if (processes != null) {
            processes.kill(spec.getServerId()); // kill -9
            return;
        }
        TestingCluster servers = cluster();
        act("kill", spec, () -> servers.killServer(spec));
    }

    /**
     * Restarts one server of a started cluster.
     *
     * @param spec the server
     * @throws IOException           if TestingCluster fails to restart it
     * @throws InterruptedException  if interrupted meanwhile
     * @throws IllegalStateException if the ensemble was given
     */
    public void restart(InstanceSpec spec) throws IOException, InterruptedException {
        if (processes != null) {
            if (processes.frozen(spec.getServerId())) {
                processes.thaw(spec.getServerId());
            } else if (!processes.running(spec.getServerId())) {
                processes.start(spec.getServerId());
            }
            return;
        }
        TestingCluster servers = cluster();
        act("restart", spec, () -> servers.restartServer(spec));
    }

    /**
     * Freezes one server process with {@code kill -STOP}; {@link #restart} (or {@link #restartTheDown}) thaws it.
     *
     * @param spec the server
     * @throws IOException           if kill cannot run
     * @throws InterruptedException  if interrupted meanwhile
     * @throws IllegalStateException if the ensemble is not of processes
     */
    public void freeze(InstanceSpec spec) throws IOException, InterruptedException {
        if (processes == null) {
            throw new IllegalStateException("only server processes can be frozen; this is " + describe());
        }
        processes.freeze(spec.getServerId());
    }

    /** What TestingCluster does to a server, which may throw anything. */
    private interface ServerAction {
        void run() throws Exception;
    }

    private static void act(String what, InstanceSpec spec, ServerAction action)
            throws IOException, InterruptedException {
        try {
            action.run();
        } catch (InterruptedException | IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(
                    "could not " + what + " ZooKeeper server " + spec.getServerId() + ": " + e.getMessage(), e);
        }
    }

    /**
     * @return the server of a started cluster whose {@code srvr} answer says {@code Mode: leader}, if any says so now
     * @throws IllegalStateException if the ensemble was given
     */
    public Optional<InstanceSpec> quorumLeader() {
        return instances().stream().filter(Ensemble::isQuorumLeader).findFirst();
    }

    /**
     * @param spec a server
     * @return whether it answers {@code srvr} with {@code Mode: leader}
     */
    public static boolean isQuorumLeader(InstanceSpec spec) {
        return mode(spec).equals("leader");
    }

    /**
     * Restarts every server of a started cluster that does not answer; does nothing for a given ensemble.
     *
     * @throws IOException          if TestingCluster fails to restart one
     * @throws InterruptedException if interrupted meanwhile
     */
    public void restartTheDown() throws IOException, InterruptedException {
        if (!owned()) {
            return;
        }
        for (InstanceSpec spec : instances()) {
            if (mode(spec).equals("down")) {
                restart(spec);
            }
        }
    }

    /**
     * Asks a server {@code srvr}.
     *
     * @param spec the server
     * @return the {@code Mode:} of its answer (leader, follower, standalone), "unknown" if the answer has none, or
     *         "down" if the server does not answer within a second
     */
    public static String mode(InstanceSpec spec) {
        try {
            String answer =
                    FourLetterWordMain.send4LetterWord(spec.getHostname(), spec.getPort(), "srvr", false, 1_000);
            return answer.lines()
                    .filter(l -> l.startsWith("Mode:"))
                    .map(l -> l.substring(5).trim())
                    .findFirst()
                    .orElse("unknown");
        } catch (Exception e) {
            return "down";
        }
    }

    private TestingCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("this ensemble was given, not started here: its servers are not touched");
        }
        return cluster;
    }

    @Override
    public void close() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
        if (processes != null) {
            processes.close();
        }
    }
}
