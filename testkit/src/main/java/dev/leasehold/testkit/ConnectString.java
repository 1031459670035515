package dev.leasehold.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A ZooKeeper connect string taken apart: {@code host:port[,host:port...][/chroot]}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param servers every server, in the order given (at least one)
 * @param chroot  the chroot with its leading slash, or "" for none
 */
public record ConnectString(List<Server> servers, String chroot) {

    /** One server's address. */
    public record Server(String host, int port) {
        /**
         * @param host the host name or address
         * @param port the client port
         * @throws IllegalArgumentException if the host is blank or the port not 1 to 65535
         */
        public Server {
            if (host == null || host.isBlank() || port < 1 || port > 65_535) {
                throw new IllegalArgumentException(
                        "expected host:port with a port of 1 to 65535, got " + host + ":" + port);
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /**
     * @param servers every server, in the order given (at least one)
     * @param chroot  the chroot with its leading slash, or "" for none
     * @throws IllegalArgumentException if there is no server or the chroot does not start with '/'
     */
    public ConnectString {
        if (servers == null || servers.isEmpty()) {
            throw new IllegalArgumentException("a connect string needs at least one server");
        }
        if (chroot == null || !(chroot.isEmpty() || chroot.startsWith("/"))) {
            throw new IllegalArgumentException("a chroot is \"\" or starts with '/', got '" + chroot + "'");
        }
        servers = List.copyOf(servers);
    }

    /**
     * Takes a connect string apart.
     *
     * @param connect {@code host:port[,host:port...][/chroot]}
     * @return its servers and chroot
     * @throws IllegalArgumentException if {@code connect} is not of that form
     */
    public static ConnectString parse(String connect) {
        if (connect == null) {
            throw new IllegalArgumentException("expected host:port[,host:port...][/chroot], got null");
        }
        int slash = connect.indexOf('/');
        String hosts = slash < 0 ? connect : connect.substring(0, slash);
        String chroot = slash < 0 ? "" : connect.substring(slash);
        List<Server> servers = new ArrayList<>();
        for (String server : hosts.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0 || !server.substring(colon + 1).matches("\\d{1,5}")) {
                throw new IllegalArgumentException("expected host:port[,host:port...][/chroot], got '" + connect + "'");
            }
            servers.add(new Server(server.substring(0, colon).trim(), Integer.parseInt(server.substring(colon + 1))));
        }
        return new ConnectString(servers, chroot);
    }

    /** @return the servers without the chroot, {@code host:port,host:port} */
    public String hosts() {
        return servers.stream().map(Server::toString).collect(Collectors.joining(","));
    }

    @Override
    public String toString() {
        return hosts() + chroot;
    }
}
