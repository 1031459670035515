package dev.leasehold.store.internal;

import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLXML;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A statement of the fenced work that may carry the transaction's settings (issue 24, the late check): on PostgreSQL
 * the gate sends nothing before the work, and the settings ({@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
 * SET LOCAL ...}) travel in the same round trip as the work's first statement, so that a fenced write costs what a
 * plain transaction does plus nothing but the check sent with the COMMIT.
 *
 * <p>A work's {@link Statement} carries them by sending them before its SQL in one {@code execute}. A
 * {@link PreparedStatement}'s SQL is fixed when it is prepared, so the first execution is made on a one-off statement
 * of the settings followed by the same SQL, with the setters the work called replayed on it; its results are what the
 * work reads until it executes the statement again (then on the statement itself, which got every setter too). A
 * statement whose parameters include a stream or a large object (read once, when executed) never carries them: the
 * settings are sent on their own first, as they are before anything else the work does.
 *
 * <p>Confined to the work's thread, as the statement is.
 */
final class FirstStatement {

    /** The executions a one-off statement can stand for: no arguments, one result the work reads next. */
    private static final Set<String> CARRIED = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    /** What the work reads from the results of the last execution. */
    private static final Set<String> RESULTS = Set.of(
            "getResultSet",
            "getUpdateCount",
            "getLargeUpdateCount",
            "getMoreResults",
            "getGeneratedKeys",
            "getWarnings",
            "clearWarnings");

    private final String sql;
    private final List<Object[]> setters = new ArrayList<>();
    private boolean replayable = true;
    private boolean recording = true;
    private PreparedStatement sent;

    /** For a statement prepared with {@code sql} alone. */
    FirstStatement(String sql) {
        this.sql = sql;
    }

    /** Whether {@code method} with {@code args} executes a prepared statement in a form this class can carry. */
    static boolean carries(String method, Object[] args) {
        return (args == null || args.length == 0) && CARRIED.contains(method);
    }

    /** Whether {@code method} with {@code args} executes a plain statement's SQL in a form that can carry them. */
    static boolean carriesSql(String method, Object[] args) {
        return args != null && args.length == 1 && args[0] instanceof String && CARRIED.contains(method);
    }

    /** Whether {@code method} only sets something on the statement, sending nothing. */
    static boolean setter(String method) {
        return method.startsWith("set") || method.equals("clearParameters");
    }

    /** Records a setter the work called, to replay on the one-off statement. */
    void record(Method method, Object[] args) {
        if (!recording) {
            return;
        }
        if (args != null) {
            for (Object arg : args) {
                if (arg instanceof InputStream
                        || arg instanceof Reader
                        || arg instanceof Blob
                        || arg instanceof Clob
                        || arg instanceof SQLXML) {
                    replayable = false;
                }
            }
        }
        setters.add(new Object[] {method, args});
    }

    /** The settings were sent: nothing more to replay. */
    void stopRecording() {
        recording = false;
        setters.clear();
    }

    /** The one-off statement of the first execution, or null. */
    PreparedStatement sent() {
        return sent;
    }

    /** Whether the first execution can go on a one-off statement. */
    boolean replayable() {
        return replayable;
    }

    /** The one-off statement whose results {@code method} reads, or null (then the work's statement's own). */
    PreparedStatement readsFrom(String method) {
        return sent != null && RESULTS.contains(method) ? sent : null;
    }

    /** The work executes again, or closes its statement: the one-off's results are over. */
    void over() throws SQLException {
        if (sent != null) {
            PreparedStatement done = sent;
            sent = null;
            done.close();
        }
    }

    /**
     * Executes {@code before} (the settings) and this SQL on a one-off statement of {@code connection}, with the
     * work's setters replayed, and answers as {@code method} would have.
     */
    Object execute(Connection connection, String before, String method) throws SQLException {
        recording = false;
        PreparedStatement statement = connection.prepareStatement(before + sql);
        try {
            for (Object[] setter : setters) {
                try {
                    ((Method) setter[0]).invoke(statement, (Object[]) setter[1]);
                } catch (InvocationTargetException e) {
                    throw e.getCause() instanceof SQLException sqlException
                            ? sqlException
                            : new SQLException("replaying " + ((Method) setter[0]).getName(), e.getCause());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
            Object answer = answer(method, Jdbc.skip(statement.execute(), statement, before), statement);
            sent = statement;
            setters.clear();
            return answer;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    /**
     * Executes {@code before} (the settings) and the work's {@code sql} on its plain {@code statement}, and answers as
     * {@code method} would have; the statement's results then are the work's.
     */
    static Object executeSql(Statement statement, String before, String method, String sql) throws SQLException {
        return answer(method, Jdbc.skip(statement.execute(before + sql), statement, before), statement);
    }

    /** What {@code method} answers, the statement's current result being rows or not. */
    private static Object answer(String method, boolean rows, Statement statement) throws SQLException {
        return switch (method) {
            case "execute" -> rows;
            case "executeQuery" -> {
                if (!rows) {
                    throw new SQLException("No results were returned by the query.", "02000");
                }
                yield statement.getResultSet();
            }
            case "executeUpdate" -> {
                if (rows) {
                    throw new SQLException("A result was returned when none was expected.", "0100E");
                }
                yield statement.getUpdateCount();
            }
            case "executeLargeUpdate" -> {
                if (rows) {
                    throw new SQLException("A result was returned when none was expected.", "0100E");
                }
                yield statement.getLargeUpdateCount();
            }
            default -> throw new IllegalArgumentException("not an execution this class carries: " + method);
        };
    }
}
