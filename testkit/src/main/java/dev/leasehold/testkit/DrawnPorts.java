package dev.leasehold.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The ports this JVM's test servers have drawn. A port is drawn free (bound to port 0, read, closed) and bound by its
 * server only later, so two servers started side by side in one JVM (two chaos campaigns, each with its own ZooKeeper
 * cluster) could draw the same port in between. Each port is handed out once per JVM; a port drawn again is drawn
 * anew.
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
     * A loopback port nobody listens on now and this JVM never handed out. The socket that found it stays open in
     * {@code held} (with any drawn before it that this JVM had handed out), so that the caller's next draws differ;
     * the caller closes them all once its ports are chosen.
     *
     * @param held the caller's open sockets
     * @return the port
     * @throws IOException if no such port turns up in 100 draws
     */
    static int draw(List<ServerSocket> held) throws IOException {
        for (int draws = 0; draws < MAX_DRAWS; draws++) {
            ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            held.add(socket);
            if (claim(socket.getLocalPort())) {
                return socket.getLocalPort();
            }
        }
        throw new IOException("no loopback port this JVM had not handed out in " + MAX_DRAWS + " draws");
    }
}
