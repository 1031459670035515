package dev.leasehold.store.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The store's side of a connection whose statements carry the transaction's settings ({@link TxDialect}) in the same
 * round trip as themselves. The store's statements ({@link Jdbc#update}, {@link Jdbc#updates}, {@link Jdbc#query})
 * {@link #take} the SQL to send before and after them. Two modes:
 * <ul>
 *   <li>{@link #once}: in a transaction, the settings go with the first statement; anything else done on the
 *       connection before that sends them on their own first;</li>
 *   <li>{@link #each}: in auto-commit mode, every statement is wrapped in its own transaction block (on PostgreSQL;
 *       elsewhere the settings are the session's and the wrap is empty), and the connection remembers whether a
 *       statement that may change data was sent ({@link #wrote}: if its answer is lost, it may have committed; issue
 *       21, defect 3); a statement made on it other than through {@link Jdbc}'s helpers (which take the wrap) is
 *       refused, since it would run without the settings and unseen (issue 21, defect 4).</li>
 * </ul>
 * Confined to the thread that runs the transaction.
 */
final class Prologue implements InvocationHandler {

    /** SQL to send before and after a statement; each part holds as many statements as it has ';'. */
    record Wrap(String before, String after) {
        static final Wrap NONE = new Wrap("", "");

        boolean isEmpty() {
            return before.isEmpty() && after.isEmpty();
        }

        static int statements(String part) {
            return (int) part.chars().filter(c -> c == ';').count();
        }
    }

    /** What a connection that carries settings also is. */
    interface Carrier {
        /**
         * The SQL to send around the caller's next statement.
         *
         * @param writes whether the statement may change data (each mode remembers that one was sent)
         */
        Wrap takeWrap(boolean writes);

        /** Each mode: whether a statement that may change data was sent, each committed on its own. */
        boolean wrote();

        /** Sends pending settings on their own, if any. */
        void flush() throws SQLException;

        /** A wrapped statement failed: ends the transaction block it left open (each mode only). */
        void failed();
    }

    private final Connection target;
    private final boolean each;
    private final Wrap wrap;
    private boolean pending = true;
    /** Each mode: a statement may be made only right after {@link #take} handed out the wrap it must carry. */
    private boolean armed;
    /** Each mode: a statement that may change data was handed its wrap, so it may have run and committed. */
    private boolean wrote;

    private Prologue(Connection target, boolean each, Wrap wrap) {
        this.target = target;
        this.each = each;
        this.wrap = wrap;
    }

    /** A connection in a transaction whose first statement carries {@code prologue}. */
    static Connection once(Connection target, String prologue) {
        return prologue.isEmpty() ? target : proxy(new Prologue(target, false, new Wrap(prologue, "")));
    }

    /**
     * A connection in auto-commit mode whose every statement is sent as {@code begin + statement + end} (as it is
     * where both are empty), and which remembers whether a statement that may change data was sent on it
     * ({@link #wrote}).
     */
    static Connection each(Connection target, String begin, String end) {
        return proxy(new Prologue(target, true, new Wrap(begin, end)));
    }

    private static Connection proxy(Prologue handler) {
        return (Connection) Proxy.newProxyInstance(
                Prologue.class.getClassLoader(), new Class<?>[] {Connection.class, Carrier.class}, handler);
    }

    /**
     * The SQL to send around the caller's statement on {@code connection}.
     *
     * @param writes whether the statement may change data
     */
    static Wrap take(Connection connection, boolean writes) {
        return connection instanceof Carrier carrier ? carrier.takeWrap(writes) : Wrap.NONE;
    }

    /**
     * Whether {@code connection} is an {@link #each} connection on which a statement that may change data was sent:
     * it committed on its own when it ran, so if its answer was lost, whether it ran is unknown.
     */
    static boolean wrote(Connection connection) {
        return connection instanceof Carrier carrier && carrier.wrote();
    }

    /**
     * After a store statement on {@code connection} failed: in {@link #each} mode its transaction block is still open
     * (the statements after the failed one, COMMIT included, were skipped), so it is rolled back here at once, even
     * if the caller swallows the failure; a connection that cannot even do that is aborted.
     */
    static void failed(Connection connection) {
        if (connection instanceof Carrier carrier) {
            carrier.failed();
        }
    }

    static void flush(Connection connection) throws SQLException {
        if (connection instanceof Carrier carrier) {
            carrier.flush();
        }
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "takeWrap" -> {
                if (each) {
                    armed = true;
                    wrote |= (Boolean) args[0];
                    return wrap;
                }
                Wrap taken = pending ? wrap : Wrap.NONE;
                pending = false;
                return taken;
            }
            case "flush" -> {
                sendPending();
                return null;
            }
            case "wrote" -> {
                return wrote;
            }
            case "failed" -> {
                if (each && !wrap.before().isEmpty()) {
                    rollbackBlock();
                }
                return null;
            }
            case "equals" -> {
                return self == args[0];
            }
            case "hashCode" -> {
                return System.identityHashCode(self);
            }
            case "prepareStatement", "createStatement", "prepareCall" -> {
                if (each && !armed) {
                    // issue 21, defect 4: a statement made directly would run in plain auto-commit, without the
                    // lock timeout and isolation the wrap carries; store code goes through Jdbc's helpers
                    throw new IllegalStateException("a store statement bypassed the transaction's settings: "
                            + method.getName() + " on an auto-commit store connection must go through Jdbc (a bug)");
                }
                armed = false;
                sendPending();
            }
            default -> {
                if (method.getDeclaringClass() != Object.class) {
                    sendPending();
                }
            }
        }
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private void rollbackBlock() {
        try (Statement statement = target.createStatement()) {
            statement.execute("ROLLBACK");
        } catch (SQLException e) {
            try {
                target.abort(Runnable::run); // never hand a connection in an aborted block back to the pool
            } catch (SQLException | RuntimeException ignored) {
                // it is closed next anyway
            }
        }
    }

    private void sendPending() throws SQLException {
        if (!each && pending) {
            pending = false;
            String prologue = wrap.before();
            try (Statement statement = target.createStatement()) {
                statement.execute(prologue.substring(0, prologue.lastIndexOf(';')));
            }
        }
    }
}
