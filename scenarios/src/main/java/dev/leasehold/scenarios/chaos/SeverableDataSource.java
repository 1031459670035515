package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One participant's way to the database, which the nemesis can cut: while cut, no connection is handed out and every
 * call on a connection fails (before it reaches the database, so nothing half-happens), as when a network partition
 * separates the participant from the database. Closing a connection always reaches the database (an open
 * transaction is rolled back then). Thread-safe: the cut is one volatile flag.
 */
final class SeverableDataSource extends PlainDataSource {

    /** What a cut connection still does: give itself back. */
    private static final Set<String> ALWAYS = Set.of("close", "isClosed", "abort", "hashCode", "equals", "toString");

    private final DataSource database;
    private final String who;
    private volatile boolean cut;

    SeverableDataSource(DataSource database, String who) {
        this.database = database;
        this.who = who;
    }

    /** Cuts this participant off the database. */
    void cut() {
        cut = true;
    }

    /** Lets it reach the database again. */
    void heal() {
        cut = false;
    }

    @Override
    public Connection getConnection() throws SQLException {
        failIfCut();
        Connection real = database.getConnection();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (!ALWAYS.contains(method.getName())) {
                        failIfCut();
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private void failIfCut() throws SQLException {
        if (cut) {
            throw new SQLTransientConnectionException(
                    who + " is cut off from the database (a chaos partition)", "08006");
        }
    }
}
