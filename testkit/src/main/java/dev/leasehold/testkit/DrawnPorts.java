package dev.leasehold.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ports this JVM's test servers have drawn. A port is drawn free (bound to port 0, read, closed) and bound by its
 * server only later, so two servers started side by side in one JVM (two chaos campaigns, each with its own ZooKeeper
 * cluster) could draw the same port in between. Each port is handed out once per JVM; a port drawn again is drawn
 * anew. Only the test kit's own servers draw here (ZooKeeper clusters, server processes, Patroni and its ZooKeeper,
 * the chaos campaigns' PostgreSQL); another JVM, or a server that picks its own port, can still take one.
 */
final class DrawnPorts {

    /** Draws past this many ports already handed out mean something else is wrong. */
    private static final int MAX_DRAWS = 100;

    private static final Set<Integer> DRAWN = new HashSet<>();

    private DrawnPorts() {}

    /**
     * Records {@code port} as handed out.
     *
     * @param port a port just drawn
     * @return false if this JVM handed it out before (draw another)
     */
    static synchronized boolean claim(int port) {
        return DRAWN.add(port);
    }

    /**
     * A port of {@code host} nobody listens on now and this JVM never handed out. The socket that found it stays open
     * in {@code held} (with any drawn before it that this JVM had handed out), so that the caller's next draws differ;
     * the caller closes them all once its ports are chosen.
     *
     * @param held the caller's open sockets
     * @param host the address the server will bind
     * @return the port
     * @throws IOException if no such port turns up in 100 draws
     */
    static int draw(List<ServerSocket> held, InetAddress host) throws IOException {
        for (int draws = 0; draws < MAX_DRAWS; draws++) {
            ServerSocket socket = new ServerSocket(0, 1, host);
            held.add(socket);
            if (claim(socket.getLocalPort())) {
                return socket.getLocalPort();
            }
        }
        throw new IOException("no port of " + host + " this JVM had not handed out in " + MAX_DRAWS + " draws");
    }

    /**
     * One loopback port nobody listens on now and this JVM never handed out, for a server that binds it later.
     *
     * @return the port
     * @throws IOException as {@link #draw}
     */
    static int one() throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            return draw(held, InetAddress.getLoopbackAddress());
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }
}
