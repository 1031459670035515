package dev.leasehold.store.internal;

import java.sql.SQLException;

/**
 * What a database failure means for the caller, read from its SQLState on PostgreSQL and H2, and from the error code
 * on MariaDB and MySQL (whose SQLState HY000 says nothing): the one place that knows those codes. Stateless and
 * thread-safe.
 */
public final class SqlStates {

    /** The kinds of failure the store treats differently; everything else is {@link #OTHER}. */
    public enum Kind {
        /**
         * A serialization failure (40001: PostgreSQL's, and the code of H2's and InnoDB's deadlocks, 1213; H2's
         * concurrent update, 90131; MariaDB's "record has changed since last read", 1020, from
         * {@code innodb_snapshot_isolation} at REPEATABLE READ): try the transaction again.
         */
        SERIALIZATION,
        /** A deadlock on PostgreSQL (40P01): the database chose this transaction as the victim. */
        DEADLOCK,
        /** A lock wait longer than the lock timeout (PostgreSQL 55P03, H2 HYT00, InnoDB error 1205). */
        LOCK_TIMEOUT,
        /** The connection broke or the database went away (class 08; H2 90067 and 90098). */
        CONNECTION_LOST,
        /**
         * The database ended the session because its transaction sat idle longer than the store's idle bound
         * (PostgreSQL 25P03, {@code idle_in_transaction_session_timeout}): rolled back, the connection gone.
         */
        IDLE_TIMEOUT,
        OTHER;

        /** Whether the same call may simply be made again. */
        public boolean retryable() {
            return this != OTHER;
        }

        /** Whether the store retries its own statements by itself (a few times, then gives up). */
        public boolean retriedByTheStore() {
            return this == SERIALIZATION || this == DEADLOCK;
        }
    }

    private SqlStates() {}

    /** The kind of {@code e}, looking through its causes for the first SQLState that says something. */
    public static Kind of(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql) {
                Kind kind = sql.getSQLState() == null ? Kind.OTHER : of(sql.getSQLState());
                if (kind == Kind.OTHER) {
                    kind = ofErrorCode(sql.getErrorCode());
                }
                if (kind != Kind.OTHER) {
                    return kind;
                }
            }
        }
        return Kind.OTHER;
    }

    /** MariaDB's and MySQL's error codes (no other database the store speaks uses codes this small). */
    static Kind ofErrorCode(int code) {
        return switch (code) {
            case 1213, 1020 -> Kind.SERIALIZATION;
            case 1205 -> Kind.LOCK_TIMEOUT;
            case 2006, 2013, 1927 -> Kind.CONNECTION_LOST;
            default -> Kind.OTHER;
        };
    }

    static Kind of(String state) {
        if (state.startsWith("08")) {
            return Kind.CONNECTION_LOST;
        }
        return switch (state) {
            case "40001", "90131" -> Kind.SERIALIZATION;
            case "40P01" -> Kind.DEADLOCK;
            case "55P03", "HYT00" -> Kind.LOCK_TIMEOUT;
            case "25P03" -> Kind.IDLE_TIMEOUT;
            case "90067", "90098", "57P01", "57P02", "57P03" -> Kind.CONNECTION_LOST;
            default -> Kind.OTHER;
        };
    }

    /**
     * Whether {@code e} is PgJDBC's named server-side statement colliding with, or missing on, a server connection it
     * shares with other clients (SQLState 42P05 "prepared statement "S_1" already exists" or 26000 "... does not
     * exist"): PgBouncer in transaction or statement pooling mode with PgJDBC's default {@code prepareThreshold}.
     * The statement was never run.
     */
    public static boolean sharedServerStatement(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql
                    && ("42P05".equals(sql.getSQLState()) || "26000".equals(sql.getSQLState()))
                    && sql.getMessage() != null
                    && sql.getMessage().contains("prepared statement \"S_")) {
                return true;
            }
        }
        return false;
    }

    /** What an idle-in-transaction timeout means (without the trailing "(retryable): "). */
    public static final String IDLE_ENDED = "the database ended the transaction because it sat idle longer than the"
            + " store's idle bound (StoreConfig.idleInTransactionTimeout): the process was paused, or the work waited"
            + " on something else between its statements; nothing of it was kept";

    /** What to tell the user when {@link #sharedServerStatement} is true. */
    public static final String SET_PREPARE_THRESHOLD = "PgJDBC's server-side prepared statements collided on a"
            + " server connection shared with other clients: behind PgBouncer in transaction (or statement) pooling"
            + " mode, set prepareThreshold=0 in the JDBC URL (or on the DataSource); nothing was committed";
}
