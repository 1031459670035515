package dev.leasehold.store.testing;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy between a JDBC driver and a real database server that loses the server's answer to one chosen request,
 * after the server ran it: the fault behind "the statement ran, committed, and the client never heard".
 *
 * <p>{@link #dropAnswerTo(String, int)} arms it once: the first request (bytes the client sends in one go) whose bytes
 * hold the marker (as UTF-8 or UTF-16, the latter for H2's wire format) is forwarded, as are the next
 * {@code requestsAfter} requests on that connection and their answers; the first answer bytes after that are
 * discarded and the client's socket is closed, so the driver sees the connection break while it waits for the
 * answer. The server side is left to notice the client is gone. Every request-answer protocol the store speaks
 * (PostgreSQL's extended query protocol up to its Sync, MariaDB's packets, H2's TCP requests) sends an answer only once
 * the request ran, so the server has run (and, in auto-commit mode, committed) it by the time its answer is dropped.
 *
 * <p>Thread-safe: arming and waiting may happen on any thread; each connection has two pump threads of its own.
 */
public final class AnswerDroppingProxy implements Closeable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Armed> armed = new AtomicReference<>();
    private volatile CountDownLatch dropped = new CountDownLatch(1);
    private volatile boolean closed;

    /** What to drop: the answer {@code requestsAfter} requests after the one holding {@code marker}. */
    private record Armed(String marker, int requestsAfter) {}

    /**
     * Starts listening on a free loopback port.
     *
     * @param targetHost the database server's host
     * @param targetPort the database server's port
     * @throws IOException if it cannot listen
     */
    public AnswerDroppingProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "answer-dropping-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the port clients connect to */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * Arms the proxy for one drop (replacing any armed one).
     *
     * @param marker        text of the chosen statement, unique among what the operation sends
     * @param requestsAfter 0 to drop the answer to the request holding the marker; n to let n more requests of that
     *                      connection through with their answers first (H2 prepares a statement in one request and
     *                      executes it in the next)
     */
    public void dropAnswerTo(String marker, int requestsAfter) {
        dropped = new CountDownLatch(1);
        armed.set(new Armed(marker, requestsAfter));
    }

    /** Whether an armed drop happened within {@code seconds}. */
    public boolean droppedWithin(long seconds) throws InterruptedException {
        return dropped.await(seconds, TimeUnit.SECONDS);
    }

    /** Whether the armed drop has not happened (yet). */
    public boolean stillArmed() {
        return armed.get() != null;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                Connection connection = new Connection(client, server);
                start(connection::requests, "requests");
                start(connection::answers, "answers");
            } catch (IOException e) {
                if (!closed) {
                    continue; // one failed connection; the driver sees it fail
                }
                return;
            }
        }
    }

    private void start(Runnable pump, String what) {
        Thread thread = new Thread(pump, "answer-dropping-proxy-" + what);
        thread.setDaemon(true);
        thread.start();
    }

    /** One client connection and its server connection. */
    private final class Connection {
        private final Socket client;
        private final Socket server;
        /** Requests still to let through (with their answers) before the answer to drop; -1 if none is chosen. */
        private int toLetThrough = -1;
        /** Set by the request pump before it forwards the request whose answer is to be dropped. */
        private volatile boolean dropNextAnswer;

        Connection(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void requests() {
            byte[] buffer = new byte[64 * 1024];
            byte[] tail = new byte[0];
            try (InputStream in = client.getInputStream()) {
                OutputStream out = server.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (toLetThrough > 0) {
                        toLetThrough--;
                    } else if (toLetThrough < 0) {
                        byte[] seen = concat(tail, buffer, n);
                        Armed chosen = armed.get();
                        if (chosen != null && holds(seen, chosen.marker()) && armed.compareAndSet(chosen, null)) {
                            toLetThrough = chosen.requestsAfter();
                        }
                        tail = java.util.Arrays.copyOfRange(seen, Math.max(0, seen.length - 256), seen.length);
                    }
                    if (toLetThrough == 0) {
                        toLetThrough = -2; // this connection's drop is decided; nothing more to look for
                        dropNextAnswer = true;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // the client went away, or the proxy closed it after the drop
            } finally {
                shutdownOutput(server); // the server sees the client leave, as after a real network loss
            }
        }

        void answers() {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = server.getInputStream()) {
                OutputStream out = client.getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (dropNextAnswer) {
                        dropped.countDown(); // before the driver can see it
                        close(client); // the answer is lost: the driver's read fails
                        drain(in, buffer);
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // either side went away
            } finally {
                close(client);
                close(server);
            }
        }
    }

    private static void drain(InputStream in, byte[] buffer) throws IOException {
        while (in.read(buffer) >= 0) {
            // discard the rest of what the server sends until it closes its side
        }
    }

    private static byte[] concat(byte[] tail, byte[] buffer, int n) {
        byte[] all = new byte[tail.length + n];
        System.arraycopy(tail, 0, all, 0, tail.length);
        System.arraycopy(buffer, 0, all, tail.length, n);
        return all;
    }

    private static boolean holds(byte[] bytes, String marker) {
        return indexOf(bytes, marker.getBytes(StandardCharsets.UTF_8)) >= 0
                || indexOf(bytes, marker.getBytes(StandardCharsets.UTF_16BE)) >= 0;
    }

    private static int indexOf(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= bytes.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void shutdownOutput(Socket socket) {
        try {
            socket.shutdownOutput();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        sockets.forEach(AnswerDroppingProxy::close);
    }
}
