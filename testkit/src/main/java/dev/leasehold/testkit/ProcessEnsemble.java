package dev.leasehold.testkit;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * A ZooKeeper ensemble of real server processes: the installed package's server ({@link ZooKeeperPackage}, Debian's
 * {@code zookeeper} 3.8), one JVM per server, on loopback ports with its own configuration and data directory. Any
 * server can be killed ({@code kill -9}), stopped (SIGTERM) and started again on its data, or frozen
 * ({@code kill -STOP}) and thawed ({@code kill -CONT}). The quorum leader is the server whose {@code srvr} answer
 * says {@code Mode: leader} (the servers whitelist {@code srvr} and {@code ruok}).
 *
 * <p>{@link #connectString()} is a plain {@code host:port,...} for any client (Curator, kazoo, Patroni's DCS).
 * {@link #close()} kills every server and deletes the directory; a JVM shutdown hook does the same if this JVM exits
 * first, and a frozen server is thawed before it is killed, so no server process outlives its ensemble.
 *
 * <p>Thread-safe: every action on the servers goes through this object's monitor (a {@code srvr} question does not).
 */
public final class ProcessEnsemble implements Closeable {

    /**
     * One server of the ensemble.
     *
     * @param id           its {@code myid}, 1 to the ensemble's size
     * @param clientPort   the port clients connect to on 127.0.0.1
     * @param quorumPort   the followers' port to the leader
     * @param electionPort the leader election port
     * @param dir          its directory: {@code zoo.cfg}, {@code data/}, {@code server.log}
     */
    public record Server(int id, int clientPort, int quorumPort, int electionPort, Path dir) {
        /** @return {@code 127.0.0.1:clientPort} */
        public String address() {
            return HOST + ":" + clientPort;
        }
    }

    private static final String HOST = "127.0.0.1";
    private static final long START_TIMEOUT_SECONDS = 60;

    private final ZooKeeperPackage zooKeeper;
    private final int tickMs;
    private final Path dir;
    private final List<Server> servers;
    private final Process[] processes;
    private final boolean[] frozen;
    private final ChildJvm.ExitHook exitHook;
    private boolean closed;

    private ProcessEnsemble(ZooKeeperPackage zooKeeper, int tickMs, Path dir, List<Server> servers) {
        this.zooKeeper = zooKeeper;
        this.tickMs = tickMs;
        this.dir = dir;
        this.servers = List.copyOf(servers);
        this.processes = new Process[servers.size()];
        this.frozen = new boolean[servers.size()];
        this.exitHook = ChildJvm.onExit("leasehold-zookeeper-processes", this::killAll);
    }

    /**
     * Starts {@code size} servers in a new temporary directory and waits until a quorum serves.
     *
     * @param zooKeeper the installed server ({@link ZooKeeperPackage#find()})
     * @param size      how many servers, 1 to 7
     * @param tickMs    the servers' tick (sessions of 2 to 20 ticks), 10 to 10,000 ms
     * @return the running ensemble
     * @throws IllegalArgumentException if size or tickMs is out of range, or zooKeeper is null
     * @throws IOException              if a server cannot be started or no quorum serves within 60 s (the servers
     *                                  started are killed then)
     */
    public static ProcessEnsemble start(ZooKeeperPackage zooKeeper, int size, int tickMs) throws IOException {
        if (zooKeeper == null) {
            throw new IllegalArgumentException("zooKeeper must not be null: ZooKeeperPackage.find()");
        }
        if (size < 1 || size > 7 || tickMs < 10 || tickMs > 10_000) {
            throw new IllegalArgumentException("an ensemble needs 1 to 7 servers and a tick of 10 to 10,000 ms, got "
                    + size + " servers, tick " + tickMs + " ms");
        }
        if (!ChildJvm.signalsSupported()) {
            throw new IllegalArgumentException(
                    "server processes need kill (Linux or macOS), this is " + System.getProperty("os.name"));
        }
        Path dir = Files.createTempDirectory("leasehold-zk-");
        List<Server> servers = new ArrayList<>();
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int id = 1; id <= size; id++) {
                servers.add(
                        new Server(id, freePort(held), freePort(held), freePort(held), dir.resolve("server-" + id)));
            }
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
        ProcessEnsemble ensemble = new ProcessEnsemble(zooKeeper, tickMs, dir, servers);
        try {
            for (Server server : servers) {
                ensemble.writeConfig(server);
            }
            for (Server server : servers) {
                ensemble.start(server.id());
            }
            ensemble.awaitQuorum(Duration.ofSeconds(START_TIMEOUT_SECONDS));
            return ensemble;
        } catch (IOException | RuntimeException e) {
            ensemble.close();
            throw e;
        } catch (InterruptedException e) {
            ensemble.close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the ensemble started", e);
        }
    }

    /**
     * A port nobody listens on now and no other server of this JVM was given; held open until every port is chosen, so
     * that no two are the same.
     */
    private static int freePort(List<ServerSocket> held) throws IOException {
        return DrawnPorts.draw(held, InetAddress.getByName(HOST));
    }

    private void writeConfig(Server server) throws IOException {
        Files.createDirectories(server.dir().resolve("data"));
        Files.writeString(server.dir().resolve("data").resolve("myid"), server.id() + "\n");
        StringBuilder cfg = new StringBuilder()
                .append("tickTime=")
                .append(tickMs)
                .append("\ninitLimit=20\nsyncLimit=10\n")
                .append("dataDir=")
                .append(server.dir().resolve("data"))
                .append("\nclientPort=")
                .append(server.clientPort())
                .append("\nclientPortAddress=")
                .append(HOST)
                .append("\n4lw.commands.whitelist=srvr,ruok\nadmin.enableServer=false\n")
                .append("maxClientCnxns=0\nautopurge.purgeInterval=0\n");
        if (servers.size() > 1) {
            for (Server peer : servers) {
                cfg.append("server.")
                        .append(peer.id())
                        .append('=')
                        .append(HOST)
                        .append(':')
                        .append(peer.quorumPort())
                        .append(':')
                        .append(peer.electionPort())
                        .append('\n');
            }
        }
        Files.writeString(server.dir().resolve("zoo.cfg"), cfg.toString());
    }

    /** @return {@code 127.0.0.1:port,...} of every server, for any ZooKeeper client */
    public String connectString() {
        return String.join(",", servers.stream().map(Server::address).toList());
    }

    /** @return the servers, by id */
    public List<Server> servers() {
        return servers;
    }

    /** @return the servers' tick in milliseconds */
    public int tickMs() {
        return tickMs;
    }

    /**
     * Starts a server that is not running, on its data directory (a restart after {@link #kill} or {@link #stop}).
     *
     * @param id the server's id
     * @throws IOException              if its JVM cannot be started
     * @throws IllegalArgumentException if there is no such server
     * @throws IllegalStateException    if it runs already, or the ensemble is closed
     */
    public synchronized void start(int id) throws IOException {
        Server server = server(id);
        open();
        if (running(id)) {
            throw new IllegalStateException("ZooKeeper server " + id + " is running already");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(
                java,
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dzookeeper.admin.enableServer=false",
                "-Dzookeeper.root.logger=WARN,CONSOLE",
                "-Dzookeeper.console.threshold=WARN",
                "-Dzookeeper.log.dir=" + server.dir(),
                "-cp",
                zooKeeper.classPath(),
                zooKeeper.mainClass(),
                server.dir().resolve("zoo.cfg").toString());
        Path log = server.dir().resolve("server.log");
        processes[id - 1] = new ProcessBuilder(command)
                .directory(server.dir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        frozen[id - 1] = false;
    }

    /**
     * Kills a server with {@code kill -9} (a frozen one too) and waits until its process is gone.
     *
     * @param id the server's id
     * @throws InterruptedException     if interrupted while waiting
     * @throws IllegalArgumentException if there is no such server
     */
    public synchronized void kill(int id) throws InterruptedException {
        server(id);
        Process process = processes[id - 1];
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            processes[id - 1] = null;
            frozen[id - 1] = false;
        }
    }

    /**
     * Stops a server gracefully (SIGTERM; SIGKILL after 10 s) and waits until its process is gone. A frozen server is
     * thawed first, or it would never hear the signal.
     *
     * @param id the server's id
     * @throws IOException              if the thaw's {@code kill -CONT} cannot run
     * @throws InterruptedException     if interrupted while waiting
     * @throws IllegalArgumentException if there is no such server
     */
    public synchronized void stop(int id) throws IOException, InterruptedException {
        server(id);
        Process process = processes[id - 1];
        if (process == null) {
            return;
        }
        if (frozen[id - 1]) {
            thaw(id);
        }
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        processes[id - 1] = null;
    }

    /**
     * Freezes a running server with {@code kill -STOP}: its sockets stay open and silent, as in a long GC pause.
     *
     * @param id the server's id
     * @throws IOException              if kill cannot run
     * @throws InterruptedException     if interrupted while kill runs
     * @throws IllegalStateException    if the server is not running
     * @throws IllegalArgumentException if there is no such server
     */
    public synchronized void freeze(int id) throws IOException, InterruptedException {
        server(id);
        if (!running(id)) {
            throw new IllegalStateException("ZooKeeper server " + id + " is not running: nothing to freeze");
        }
        ChildJvm.signal("-STOP", processes[id - 1]);
        frozen[id - 1] = true;
    }

    /**
     * Thaws a frozen server with {@code kill -CONT}; does nothing to a server that is not frozen.
     *
     * @param id the server's id
     * @throws IOException              if kill cannot run
     * @throws InterruptedException     if interrupted while kill runs
     * @throws IllegalArgumentException if there is no such server
     */
    public synchronized void thaw(int id) throws IOException, InterruptedException {
        server(id);
        if (frozen[id - 1] && running(id)) {
            ChildJvm.signal("-CONT", processes[id - 1]);
        }
        frozen[id - 1] = false;
    }

    /**
     * @param id the server's id
     * @return whether its process is alive (frozen or not)
     * @throws IllegalArgumentException if there is no such server
     */
    public synchronized boolean running(int id) {
        server(id);
        Process process = processes[id - 1];
        return process != null && process.isAlive();
    }

    /**
     * @param id the server's id
     * @return whether it was frozen with {@link #freeze} and not thawed since
     */
    public synchronized boolean frozen(int id) {
        server(id);
        return frozen[id - 1];
    }

    /**
     * @param id the server's id
     * @return the {@code Mode:} of its {@code srvr} answer (leader, follower, standalone), "unknown" if the answer has
     *         none (a server without a quorum answers that it is not serving requests), "down" if it does not answer
     *         within a second (killed or frozen)
     */
    public String mode(int id) {
        Server server = server(id);
        try {
            String answer = FourLetterWordMain.send4LetterWord(HOST, server.clientPort(), "srvr", false, 1_000);
            return answer.lines()
                    .filter(l -> l.startsWith("Mode:"))
                    .map(l -> l.substring(5).trim())
                    .findFirst()
                    .orElse("unknown");
        } catch (Exception e) {
            return "down";
        }
    }

    /** @return the server that says {@code Mode: leader} (or {@code standalone}, for one server), if any does now */
    public Optional<Server> leader() {
        return servers.stream()
                .filter(s -> {
                    String mode = mode(s.id());
                    return mode.equals("leader") || mode.equals("standalone");
                })
                .findFirst();
    }

    /**
     * Waits until one server leads and every running, unfrozen server answers {@code srvr} as leader or follower.
     *
     * @param timeout how long to wait
     * @return the leader
     * @throws IOException          if that does not happen in time (the servers' modes and logs are named)
     * @throws InterruptedException if interrupted while waiting
     */
    public Server awaitQuorum(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<Server> leader = leader();
            if (leader.isPresent() && servers.stream().allMatch(this::serving)) {
                return leader.get();
            }
            if (System.nanoTime() > deadline) {
                StringBuilder why = new StringBuilder("no ZooKeeper quorum within " + timeout.toSeconds() + " s:");
                for (Server s : servers) {
                    why.append(" server ").append(s.id()).append(' ').append(mode(s.id()));
                    if (!running(s.id())) {
                        why.append(" (not running; see ")
                                .append(s.dir().resolve("server.log"))
                                .append(')');
                    }
                }
                throw new IOException(why.toString());
            }
            Thread.sleep(50); // polling srvr: the servers have no event to wait on from here
        }
    }

    /** A server that should serve (it runs and is not frozen) answers; one that should not counts as serving. */
    private boolean serving(Server server) {
        if (!running(server.id()) || frozen(server.id())) {
            return true;
        }
        String mode = mode(server.id());
        return mode.equals("leader") || mode.equals("follower") || mode.equals("standalone");
    }

    /**
     * Asks one server {@code ruok}.
     *
     * @param id the server's id
     * @return whether it answered {@code imok} within a second
     */
    public boolean answers(int id) {
        Server server = server(id);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, server.clientPort()), 1_000);
            socket.setSoTimeout(1_000);
            socket.getOutputStream().write("ruok".getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).equals("imok");
        } catch (IOException e) {
            return false;
        }
    }

    private Server server(int id) {
        if (id < 1 || id > servers.size()) {
            throw new IllegalArgumentException("no ZooKeeper server " + id + "; ids are 1 to " + servers.size());
        }
        return servers.get(id - 1);
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("the ensemble is closed");
        }
    }

    /**
     * Thaws and kills every server; the shutdown hook's work (without the monitor, which a thread may hold while the
     * JVM exits), and the first half of {@link #close()}.
     */
    private void killAll() {
        for (int i = 0; i < processes.length; i++) {
            Process process = processes[i];
            if (process == null) {
                continue;
            }
            if (frozen[i]) {
                try {
                    ChildJvm.signal("-CONT", process); // a stopped process ignores nothing but SIGKILL; thaw anyway
                } catch (IOException | InterruptedException | IllegalStateException ignored) {
                    // SIGKILL below ends it either way
                }
            }
            process.destroyForcibly();
        }
        for (int i = 0; i < processes.length; i++) {
            if (processes[i] != null) {
                try {
                    processes[i].waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                processes[i] = null;
            }
        }
    }

    /** Kills every server and deletes the ensemble's directory; idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            killAll();
        }
        exitHook.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // a temporary directory: best effort
        }
    }

    @Override
    public String toString() {
        return servers.size() + " ZooKeeper server processes at " + connectString() + " (tick " + tickMs + " ms)";
    }
}
