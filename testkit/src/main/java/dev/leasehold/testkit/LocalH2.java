package dev.leasehold.testkit;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.h2.tools.Server;

/**
 * H2's TCP server as the test kit and the program start it: for this machine only, and only into databases that
 * exist already.
 *
 * <ul>
 *   <li>Never {@code -ifNotExists}: with it, any local process could open a database of a new name, become its
 *       administrator and run Java code inside this JVM ({@code CREATE ALIAS ... AS '<java source>'}). Create the
 *       database first, in this JVM, with a user and a random password ({@link LockedPostgres#newPassword()}); an
 *       in-memory one needs {@code DB_CLOSE_DELAY=-1} so that it outlives that first connection.</li>
 *   <li>Never {@code -tcpAllowOthers}: H2 refuses connections from other hosts.</li>
 *   <li>Bound to 127.0.0.1 when this class sets {@code h2.bindAddress} before H2 first reads its system properties
 *       (H2 reads them once per JVM; the program sets it first thing in its {@code main}).</li>
 * </ul>
 */
public final class LocalH2 {
    /** H2's system property for the address its servers bind to. */
    public static final String BIND_ADDRESS = "h2.bindAddress";

    static {
        bindToLoopback();
    }

    private LocalH2() {}

    /** Asks H2 to bind its servers to 127.0.0.1, unless something else was asked for. Call before H2 is used. */
    public static void bindToLoopback() {
        if (System.getProperty(BIND_ADDRESS) == null) {
            System.setProperty(BIND_ADDRESS, "127.0.0.1");
        }
    }

    /**
     * Starts a TCP server on a free port.
     *
     * @param options more of H2's server options (for example {@code -baseDir DIR}); {@code -ifNotExists} and
     *     {@code -tcpAllowOthers} are refused
     * @return the running server
     * @throws SQLException if it does not start
     */
    public static Server tcpServer(String... options) throws SQLException {
        return tcpServer(0, options);
    }

    /**
     * Starts a TCP server.
     *
     * @param port    the port, 0 for a free one
     * @param options more of H2's server options; {@code -ifNotExists} and {@code -tcpAllowOthers} are refused
     * @return the running server
     * @throws SQLException if it does not start
     */
    public static Server tcpServer(int port, String... options) throws SQLException {
        for (String option : options) {
            if (option.equalsIgnoreCase("-ifNotExists") || option.equalsIgnoreCase("-tcpAllowOthers")) {
                throw new IllegalArgumentException(option + " would let other processes or hosts in; see LocalH2");
            }
        }
        List<String> args = new ArrayList<>(List.of("-tcpPort", String.valueOf(port)));
        args.addAll(Arrays.asList(options));
        return Server.createTcpServer(args.toArray(String[]::new)).start();
    }
}
