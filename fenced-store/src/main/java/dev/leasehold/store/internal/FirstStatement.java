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
 * <p>Confined to the work's thread, as the statement is, except {@link #cancel}, which JDBC allows from another.
 */
final class FirstStatement {

    /** The executions a one-off statement can stand for: no arguments, one result the work reads next. */
    private static final Set<String> CARRIED = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    /** What ends the results of the last execution: the next one, a batch, or closing the statement. */
    private static final Set<String> ENDS_RESULTS = Set.of(
            "execute",
            "executeQuery",
            "executeUpdate",
            "executeLargeUpdate",
            "executeBatch",
            "executeLargeBatch",
            "addBatch",
            "clearBatch",
            "close");

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
    /** The one-off statement running or read; volatile for {@link #cancel} from another thread. */
    private volatile PreparedStatement sent;

    /** For a statement prepared with {@code sql} alone. */
    FirstStatement(String sql) {
        this.sql = sql;
    }

    /**
     * Whether {@code method} with {@code args} executes the statement in a form a one-off can carry, with every setter
     * the work called recorded (none since the settings were sent, none on a closed statement).
     */
    boolean carries(String method, Object[] args) {
        return recording && replayable && (args == null || args.length == 0) && CARRIED.contains(method);
    }

    /** Whether {@code method} ends the results of the last execution. */
    static boolean endsResults(String method) {
        return ENDS_RESULTS.contains(method);
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
        Object[] values = args == null ? null : args.clone();
        if (values != null) {
            for (int i = 0; i < values.length; i++) {
                Object arg = values[i];
                if (arg instanceof InputStream
                        || arg instanceof Reader
                        || arg instanceof Blob
                        || arg instanceof Clob
                        || arg instanceof SQLXML) {
                    replayable = false;
                } else if (arg instanceof byte[] bytes) {
                    values[i] = bytes.clone(); // as set, as the driver copies it
                } else if (arg instanceof java.util.Date date) {
                    values[i] = date.clone(); // a Timestamp changed after it was set is sent as set
                }
            }
        }
        setters.add(new Object[] {method, values});
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

    /** The work closed its statement: it carries nothing any more. */
    void close() {
        stopRecording();
    }

    /** Cancels the one-off statement running or read, if any (from any thread). */
    void cancel() throws SQLException {
        PreparedStatement running = sent;
        if (running != null) {
            running.cancel();
        }
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
            sent = statement; // before it runs: a cancel from another thread reaches it
            Object answer = answer(method, Jdbc.skip(statement.execute(), statement, before), statement);
            setters.clear();
            return answer;
        } catch (SQLException | RuntimeException e) {
            sent = null;
            try {
                statement.close();
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
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
