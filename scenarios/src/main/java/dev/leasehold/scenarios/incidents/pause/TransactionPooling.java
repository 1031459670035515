package dev.leasehold.scenarios.incidents.pause;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A stand-in for PgBouncer in {@code pool_mode = transaction}, for when no real one is given: a few server
 * connections, and every transaction of every client (each statement, in auto-commit mode) runs on the next one,
 * round-robin, whatever client sent it. That is the property the seeds name: "each transaction gets another server
 * connection", so session state (a session advisory lock, a prepared statement, a SET) belongs to whichever server
 * connection ran it, not to the client. What a real PgBouncer adds (queueing, client limits) does not matter here.
 *
 * <p>Supports what the scenario's clients do: auto-commit statements through {@code prepareStatement} and
 * {@code createStatement}, and {@code close}. Thread-safe: a server connection runs one transaction at a time.
 */
final class TransactionPooling extends PlainDataSource implements AutoCloseable {

    private final List<Connection> servers = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();

    TransactionPooling(DataSource postgres, int serverConnections) throws SQLException {
        for (int i = 0; i < serverConnections; i++) {
            servers.add(postgres.getConnection());
        }
    }

    /** A client connection: each of its statements is a transaction on the next server connection. */
    @Override
    public Connection getConnection() {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close", "setAutoCommit", "commit", "rollback" -> {
                            return null; // a client's end of a transaction: the server connection stays pooled
                        }
                        case "isClosed" -> {
                            return false;
                        }
                        case "getAutoCommit" -> {
                            return true;
                        }
                        default -> {
                            Connection server = servers.get(Math.floorMod(next.getAndIncrement(), servers.size()));
                            synchronized (server) { // one transaction at a time per server connection
                                return invoke(server, method, args);
                            }
                        }
                    }
                });
    }

    private static Object invoke(Connection server, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(server, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public void close() {
        for (Connection server : servers) {
            try {
                server.close();
            } catch (SQLException ignored) {
                // the server is going away anyway
            }
        }
    }
}
