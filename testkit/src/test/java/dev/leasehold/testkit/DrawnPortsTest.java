package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DrawnPortsTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void aPortIsHandedOutOncePerJvm() throws Exception {
        List<ServerSocket> held = new ArrayList<>();
        int port;
        try {
            port = DrawnPorts.draw(held, LOOPBACK);
        } finally {
            closeAll(held);
        }
        assertThat(DrawnPorts.claim(port))
                .as("port %d was handed out already", port)
                .isFalse();
    }

    @Test
    void drawsNeverRepeatAPortEvenWhenItsSocketIsClosedBeforeTheNextDraw() throws Exception {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            List<ServerSocket> held = new ArrayList<>();
            try {
                int port = DrawnPorts.draw(held, LOOPBACK);
                assertThat(seen.add(port))
                        .as("port %d drawn twice (draw %d)", port, i)
                        .isTrue();
                assertThat(held).as("the socket that found the port is held").isNotEmpty();
                assertThat(held.get(held.size() - 1).getLocalPort()).isEqualTo(port);
            } finally {
                closeAll(held); // free again for the OS, which may hand it out once more: the JVM must not
            }
        }
    }

    @Test
    void oneHandsOutAPortWithItsSocketClosedForTheServerToBind() throws Exception {
        int first = DrawnPorts.one();
        int second = DrawnPorts.one();
        assertThat(first).isNotEqualTo(second);
        assertThat(DrawnPorts.claim(first)).isFalse();
        try (ServerSocket server = new ServerSocket(first, 1, LOOPBACK)) { // free: the drawing socket was closed
            assertThat(server.getLocalPort()).isEqualTo(first);
        }
    }

    private static void closeAll(List<ServerSocket> sockets) throws Exception {
        for (ServerSocket socket : sockets) {
            socket.close();
        }
    }
}
