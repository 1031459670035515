package dev.leasehold.store.internal;

import dev.leasehold.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A tiny JDBC helper: run a body on a connection, in a transaction or not, and always give the connection back.
 * An {@link SQLException} becomes a {@link StoreException} naming the operation; any other exception is rethrown
 * as it is, after the rollback.
 */
public final class Jdbc {

    @FunctionalInterface
    public interface Body<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** Told of every connection before it is used. */
    @FunctionalInterface
    public interface OnConnection {
        void accept(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final OnConnection onConnection;

    public Jdbc(DataSource dataSource, OnConnection onConnection) {
        this.dataSource = dataSource;
        this.onConnection = onConnection;
    }

    /** One transaction: commit if {@code body} returns, roll back if it throws. */
    public <T> T inTransaction(String operation, Body<T> body) {
        try (Connection connection = dataSource.getConnection()) {
            onConnection.accept(connection);
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                T result = body.apply(connection);
                connection.commit();
                return result;
            } catch (SQLException e) {
                rollback(connection, e);
                throw new StoreException(operation, e);
            } catch (RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            } finally {
                restore(connection, autoCommit);
            }
        } catch (SQLException e) {
            throw new StoreException(operation, e);
        }
    }

    /**
     * One statement: committed on its own (auto-commit), or committed here if the data source hands out connections
     * with auto-commit off.
     */
    public <T> T withConnection(String operation, Body<T> body) {
        try (Connection connection = dataSource.getConnection()) {
            onConnection.accept(connection);
            if (connection.getAutoCommit()) {
                return body.apply(connection);
            }
            try {
                T result = body.apply(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException(operation, e);
        }
    }

    /** Maps one row of a result set. */
    @FunctionalInterface
    public interface Row<T> {
        T map(ResultSet row) throws SQLException;
    }

    /** Runs an INSERT, UPDATE or DELETE with bound parameters; returns the update count. */
    public static int update(Connection connection, String sql, Object... params) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, params);
            return statement.executeUpdate();
        }
    }

    /** Runs a query (or an UPDATE that returns rows) with bound parameters. */
    public static <T> List<T> query(Connection connection, String sql, Row<T> row, Object... params)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            bind(statement, params);
            List<T> rows = new ArrayList<>();
            try (ResultSet results = statement.executeQuery()) {
                while (results.next()) {
                    rows.add(row.map(results));
                }
            }
            return rows;
        }
    }

    /** 0 rows: the race was lost (a normal outcome). 1: done. More: a bug, since every such update names a key. */
    public static boolean oneRow(int count, String operation) {
        if (count > 1) {
            throw new IllegalStateException(operation + " changed " + count + " rows, expected 0 or 1: a bug");
        }
        return count == 1;
    }

    public static Instant instant(ResultSet row, String column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    private static void bind(PreparedStatement statement, Object[] params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object param = params[i];
            if (param instanceof Instant instant) {
                statement.setObject(i + 1, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
            } else if (param instanceof Long value) {
                statement.setLong(i + 1, value);
            } else if (param instanceof String value) {
                statement.setString(i + 1, value);
            } else {
                throw new IllegalArgumentException("cannot bind " + param + " as parameter " + (i + 1));
            }
        }
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    private static void restore(Connection connection, boolean autoCommit) {
        try {
            connection.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // the connection is closed next; a pool resets it
        }
    }
}
