package dev.leasehold.store.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The set-up every PgBouncer subclass of a contract shares: one fresh database {@code leasehold_test_<name>} behind the
 * bouncer for the test class, made on first use ({@link PgBouncer#freshDatabase}), and roles in it with their own
 * settings ({@link PgBouncer#as}), each made once. A test class keeps one in a field (the contracts run with one
 * instance per class) and returns its data sources from the contract's methods; a class that is skipped
 * ({@link WithPgBouncer}) never touches the bouncer.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class PgBouncerDatabase {

    private final String name;
    private DataSource dataSource;
    private final Map<String, DataSource> roles = new HashMap<>();

    /** @param name the database's name after {@code leasehold_test_} */
    public PgBouncerDatabase(String name) {
        this.name = name;
    }

    /** @return the fresh database, as the URL's user (made on the first call) */
    public synchronized DataSource dataSource() {
        if (dataSource == null) {
            dataSource = PgBouncer.freshDatabase(name);
        }
        return dataSource;
    }

    /**
     * @return the database as the role {@code leasehold_<role>} with {@code settings} on every server connection it
     *     opens there (made on the first call for that role)
     */
    public synchronized DataSource as(String role, Map<String, String> settings) {
        dataSource(); // ALTER ROLE ... IN DATABASE needs the database
        return roles.computeIfAbsent(role, r -> PgBouncer.as(r, name, settings));
    }

    /** @return the database as a role whose statements wait at most 1 ms for a lock ({@code lock_timeout = 1}) */
    public DataSource impatient() {
        return as("impatient", Map.of("lock_timeout", "1"));
    }

    /** @return the sessions of the cluster waiting on a lock in this database */
    public int waitingOnLocks(Connection connection) throws SQLException {
        return PgBouncer.waitingOnLocks(connection, name);
    }
}
