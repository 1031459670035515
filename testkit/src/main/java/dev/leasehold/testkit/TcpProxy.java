package dev.leasehold.testkit;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.ZooDefs;

/**
 * An in-process TCP proxy between one ZooKeeper client and its server, for faults ZooKeeper really sees.
 *
 * <p>{@link #silence()} drops every byte in both directions while keeping the connections open: to the server
 * the client's process went silent (a partition or a frozen process), so the server expires the session after
 * its timeout; {@code KillSession} cannot do that (it expires the session on the client only). {@link #resume()}
 * cuts the silenced connections, so the client reconnects on a clean stream.
 *
 * <p>It reads ZooKeeper's length-prefixed frames, so it counts what crosses it: watch notifications sent to the
 * client (replies with xid -1) and requests sent by the client (xid &gt;= 0; pings, auth and set-watches have
 * negative xids).
 *
 * <p>A client behind proxies must keep to the addresses it was given: build it with {@link #clientBuilder}, which
 * turns Curator's ensemble tracker off (it would otherwise read the servers' own addresses from
 * {@code /zookeeper/config}, bypass the proxies, and no silence would ever expire a session).
 *
 * <p>Thread-safe: {@link #silence()}, {@link #resume()} and the counters may be used from any thread.
 *
 * <p>Why one file of more than 300 lines: the proxy and the ZooKeeper frame parsing that counts requests and watch
 * notifications share the connection's state.
 */
public final class TcpProxy implements Closeable {

    private static final int NOTIFICATION_XID = -1;
    private static final int MAX_FRAME = 64 * 1024 * 1024;
    /** Op codes of reads whose request ends with a watch flag: exists, getData, getChildren, getChildren2. */
    private static final Set<Integer> WATCHING_READS = Set.of(
            ZooDefs.OpCode.exists, ZooDefs.OpCode.getData, ZooDefs.OpCode.getChildren, ZooDefs.OpCode.getChildren2);

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicLong notifications = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final List<byte[]> requestFrames = new CopyOnWriteArrayList<>();
    private final List<String> watchedPaths = new CopyOnWriteArrayList<>();
    private final Object requestSeen = new Object();
    private volatile boolean silent;
    private volatile boolean closed;

    /**
     * Starts a proxy on a free loopback port.
     *
     * @param targetHost the server's host
     * @param targetPort the server's client port
     * @throws IOException if it cannot listen
     */
    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * A proxy to the first server of a ZooKeeper connect string.
     *
     * @param connectString e.g. {@code 127.0.0.1:2181}
     * @return the started proxy
     * @throws IOException if it cannot listen
     */
    public static TcpProxy to(String connectString) throws IOException {
        ConnectString.Server first =
                ConnectString.parse(connectString).servers().get(0);
        return new TcpProxy(first.host(), first.port());
    }

    /**
     * A Curator client builder that keeps to {@code connectString} (ensemble tracker off), with this session
     * timeout, a connection timeout of the same length and a short retry (5 times, 200 ms apart).
     *
     * @param connectString the proxies' addresses, e.g. {@code proxy.connectString()}
     * @param sessionMs     the session timeout to request
     * @return the builder, to adjust further and build
     */
    public static CuratorFrameworkFactory.Builder clientBuilder(String connectString, int sessionMs) {
        return CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .ensembleTracker(false)
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(sessionMs)
                .retryPolicy(new RetryNTimes(5, 200));
    }

    /** @return the connect string that reaches the server through this proxy, {@code 127.0.0.1:port} */
    public String connectString() {
        return listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort();
    }

    /** From now on nothing crosses the proxy, in either direction. */
    public void silence() {
        silent = true;
    }

    /** Lets bytes cross again, after cutting the connections that were silenced. */
    public void resume() {
        silent = false;
        closeConnections();
    }

    /** Cuts every open connection (the client sees a disconnect at once and reconnects through the proxy). */
    public void cut() {
        closeConnections();
    }

    /** @return how many watch notifications the server sent the client through this proxy */
    public long watchNotifications() {
        return notifications.get();
    }

    /** @return how many requests the client sent through this proxy (pings, auth and set-watches not counted) */
    public long requests() {
        return requests.get();
    }

    /**
     * @param fragment part of a path
     * @return how many requests the client sent that name a path containing {@code fragment} (multi included)
     */
    public long requests(String fragment) {
        byte[] needle = fragment.getBytes(StandardCharsets.UTF_8);
        return requestFrames.stream().filter(frame -> contains(frame, needle)).count();
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Waits until the client has sent at least {@code n} requests in all.
     *
     * @param n       how many
     * @param timeout how long to wait at most
     * @return false on timeout
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitRequests(long n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (requestSeen) {
            while (requests.get() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(requestSeen, left);
            }
            return true;
        }
    }

    /**
     * Reads (exists, getData, getChildren) sent by the client with the watch flag set, on paths that start with
     * {@code prefix} (Curator itself watches {@code /zookeeper/config}).
     *
     * @param prefix the start of the paths
     * @return how many such reads the client sent
     */
    public long watchRequests(String prefix) {
        return watchedPaths.stream().filter(path -> path.startsWith(prefix)).count();
    }

    /**
     * Waits until the client has sent at least {@code n} watching reads under {@code prefix}.
     *
     * @param prefix  the start of the paths
     * @param n       how many
     * @param timeout how long to wait at most
     * @return false on timeout
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitWatchRequests(String prefix, long n, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (requestSeen) {
            while (watchRequests(prefix) < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(requestSeen, left);
            }
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        closeConnections();
    }

    private void closeConnections() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server;
                try {
                    server = new Socket(targetHost, targetPort);
                } catch (IOException e) {
                    closeQuietly(client); // the target is down: the client sees a refused connection at once
                    continue;
                }
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                pump(client, server, true);
                pump(server, client, false);
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean fromClient) {
        Thread thread = new Thread(
                () -> {
                    try (DataInputStream in = new DataInputStream(from.getInputStream());
                            DataOutputStream out = new DataOutputStream(to.getOutputStream())) {
                        boolean handshake = true; // the first frame each way is ConnectRequest / ConnectResponse
                        while (true) {
                            int length = in.readInt();
                            if (length < 0 || length > MAX_FRAME) {
                                throw new IOException("not a ZooKeeper frame: length " + length);
                            }
                            byte[] frame = new byte[length];
                            in.readFully(frame);
                            if (silent) {
                                continue;
                            }
                            if (!handshake && length >= 4) {
                                count(frame, fromClient);
                            }
                            handshake = false;
                            out.writeInt(length);
                            out.write(frame);
                            out.flush();
                        }
                    } catch (IOException e) {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "tcp-proxy-" + (fromClient ? "up-" : "down-") + from.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    private void count(byte[] frame, boolean fromClient) {
        int xid = intAt(frame, 0);
        if (fromClient && xid >= 0) {
            requestFrames.add(frame);
            requests.incrementAndGet();
            synchronized (requestSeen) {
                requestSeen.notifyAll();
            }
            if (frame.length >= 13 && WATCHING_READS.contains(intAt(frame, 4)) && frame[frame.length - 1] == 1) {
                int pathLength = intAt(frame, 8);
                watchedPaths.add(
                        pathLength >= 0 && 12 + pathLength < frame.length
                                ? new String(frame, 12, pathLength, StandardCharsets.UTF_8)
                                : "?");
                synchronized (requestSeen) {
                    requestSeen.notifyAll();
                }
            }
        } else if (!fromClient && xid == NOTIFICATION_XID) {
            notifications.incrementAndGet();
        }
    }

    private static int intAt(byte[] frame, int at) {
        return ((frame[at] & 0xff) << 24)
                | ((frame[at + 1] & 0xff) << 16)
                | ((frame[at + 2] & 0xff) << 8)
                | (frame[at + 3] & 0xff);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
