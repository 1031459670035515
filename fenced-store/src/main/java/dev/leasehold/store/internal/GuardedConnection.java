package dev.leasehold.store.internal;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Struct;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The connection a fenced work gets: the gate's transaction, which the work may use but not end or reconfigure.
 * {@code commit}, {@code rollback()} (rolling back to a savepoint is fine), {@code setAutoCommit}, {@code close},
 * {@code abort}, {@code setTransactionIsolation} and {@code setReadOnly} throw an {@link SQLException} naming the
 * method, and the refusal is remembered: a work that swallows it still has its transaction rolled back. Once the
 * transaction is over, every call is refused (a work that kept the connection cannot reach the next borrower's).
 *
 * <p>Statements made through it ({@code createStatement}, {@code prepareStatement}, {@code prepareCall}) are guarded
 * too: SQL text that would end the gate's transaction ({@link TransactionControl}: {@code COMMIT}, {@code ROLLBACK}
 * and the like everywhere, DDL where it commits by itself) is refused with SQLState 25000 before it is sent, and
 * remembered like a refused method; their {@code getConnection()} is this guarded connection; and every one still
 * open when the work returns is closed then, so a statement the work kept cannot reach the next borrower's
 * transaction.
 *
 * <p>Not a sandbox: {@code unwrap} and {@code DatabaseMetaData.getConnection()} reach the driver's connection. Thread-safety: the flags are volatile; the connection itself is as thread-safe as
 * the driver's (use it from the work's thread).
 *
 * <p>With a {@link Mark} (where plain DML cannot end a transaction: {@link TxDialect#dmlKeepsTransaction()}), the
 * gate's transaction is marked only just before the work first does something that could end it or reach past the
 * guard: SQL that is not plain DML ({@link TransactionControl#plainDml}), {@code unwrap} or {@code getMetaData}, or a
 * value from a result set that reaches the driver (a nested result set, an {@code Array}, a {@code Ref} or a
 * {@code Struct}). Up to then only plain DML ran, so the transaction is still the gate's when marked; a work of plain
 * DML alone, reads included, is never marked, and the gate need not verify it.
 *
 * <p>Result sets of the work's statements are guarded too: their {@code getStatement()} is the guarded statement, so
 * a commit through it is refused like any other.
 */
public final class GuardedConnection implements InvocationHandler {

    private static final Set<String> REFUSED =
            Set.of("commit", "setAutoCommit", "close", "abort", "setTransactionIsolation", "setReadOnly");

    private static final Set<String> WITH_SQL = Set.of(
            "execute",
            "executeQuery",
            "executeUpdate",
            "executeLargeUpdate",
            "addBatch",
            "prepareStatement",
            "prepareCall");

    /**
     * The proxy classes' constructors, looked up once: {@link Proxy#newProxyInstance} looks its class up again on
     * every call, and a fenced write makes at least two (the connection and the work's statement).
     */
    private static final Constructor<?> CONNECTION = proxyConstructor(Connection.class);

    private static final Map<Class<?>, Constructor<?>> STATEMENTS = Map.of(
            Statement.class, proxyConstructor(Statement.class),
            PreparedStatement.class, proxyConstructor(PreparedStatement.class),
            CallableStatement.class, proxyConstructor(CallableStatement.class));

    private static final Constructor<?> RESULT_SET = proxyConstructor(ResultSet.class);

    private final Connection target;
    private final Connection proxy;
    private final boolean ddlCommits;
    private final List<Statement> statements = new CopyOnWriteArrayList<>();
    private final Mark mark;
    private volatile boolean marked;
    private volatile Object identity;

    /** Marks the gate's transaction; its answer is the transaction's identity, compared before the commit. */
    @FunctionalInterface
    public interface Mark {
        Object take() throws SQLException;
    }

    private volatile String refused;
    private volatile boolean over;
    private volatile SQLException failure;

    /**
     * A guard on the gate's transaction on {@code target}; DDL is refused too where it commits by itself.
     *
     * @param mark null if the caller marked the transaction already; else taken at most once, lazily (see above)
     */
    public GuardedConnection(Connection target, boolean ddlCommits, Mark mark) {
        this.target = target;
        this.ddlCommits = ddlCommits;
        this.mark = mark;
        this.proxy = (Connection) newProxy(CONNECTION, this);
    }

    private static Constructor<?> proxyConstructor(Class<?> type) {
        try {
            return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> null)
                    .getClass()
                    .getConstructor(InvocationHandler.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("a proxy class without its public constructor", e);
        }
    }

    private static Object newProxy(Constructor<?> constructor, InvocationHandler handler) {
        try {
            return constructor.newInstance(handler);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    public Connection connection() {
        return proxy;
    }

    /** Whether the lazy {@link Mark} was taken. */
    public boolean marked() {
        return marked;
    }

    /**
     * The first failure of a call the work made through this connection or its statements, preferring one that may
     * have ended the whole transaction ({@link SqlStates.Kind#retryable()}: a deadlock, serialization failure, lock
     * timeout or lost connection), or null. A work may catch a failure and go on; the gate reads this before it
     * commits a transaction it did not mark.
     */
    public SQLException failure() {
        return failure;
    }

    private Throwable failed(Throwable cause) {
        if (cause instanceof SQLException sql
                && (failure == null
                        || !SqlStates.of(failure).retryable()
                                && SqlStates.of(sql).retryable())) {
            failure = sql;
        }
        return cause;
    }

    /** What the lazy {@link Mark} answered, if {@link #marked()}. */
    public Object mark() {
        return identity;
    }

    /**
     * Takes the lazy mark before the work's call, if this call could end the transaction or reach past the guard. A
     * mark that fails is remembered like a refused call: the transaction is rolled back even if the work swallows it.
     */
    private void markBefore(String method, Object[] args, boolean statement) throws SQLException {
        if (mark == null || marked) {
            return;
        }
        boolean needed = method.equals("unwrap")
                || method.equals("getMetaData") && !statement
                || method.equals("prepareCall")
                || args != null
                        && args.length > 0
                        && args[0] instanceof String sql
                        && WITH_SQL.contains(method)
                        && !TransactionControl.plainDml(sql);
        if (needed) {
            markNow();
        }
    }

    /** Takes the lazy mark now, if there is one and it was not taken yet. */
    private void markNow() throws SQLException {
        if (mark == null || marked) {
            return;
        }
        try {
            identity = mark.take();
            marked = true;
        } catch (SQLException e) {
            if (refused == null) {
                refused = "the gate's mark of its transaction (" + e.getMessage() + ")";
            }
            throw e;
        }
    }

    /** The first method the work called and was refused, or null. */
    public String refused() {
        return refused;
    }

    /** The transaction is over: refuse everything from now on, and close the statements the work left open. */
    public void end() {
        over = true;
        for (Statement statement : statements) {
            try {
                statement.close();
            } catch (SQLException | RuntimeException ignored) {
                // closing is all that is left to do with it
            }
        }
        statements.clear();
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (method.getDeclaringClass() == Object.class) {
            return objectMethod(self, name, args, "fenced transaction");
        }
        boolean isRefused = REFUSED.contains(name) || (name.equals("rollback") && (args == null || args.length == 0));
        if (isRefused || over) {
            String call = name + (name.equals("rollback") ? "()" : "");
            if (over) {
                throw new SQLException(
                        call + " refused: this fenced transaction is over; the connection was only"
                                + " lent to the work while it ran",
                        "25000");
            }
            if (refused == null) {
                refused = call;
            }
            throw new SQLException(
                    call + " refused: the fenced transaction belongs to the gate, which commits it"
                            + " when the work returns and rolls it back if the work throws (refused: commit, rollback(),"
                            + " setAutoCommit, close, abort, setTransactionIsolation, setReadOnly; rollback(Savepoint) is"
                            + " fine)",
                    "25000");
        }
        checkSql(name, args);
        markBefore(name, args, false);
        Object result;
        try {
            result = method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw failed(e.getCause());
        }
        if (result instanceof Statement statement) {
            return guard(statement, method.getReturnType());
        }
        return result;
    }

    /** Refuses SQL text that would end the gate's transaction, before it is sent. */
    private void checkSql(String method, Object[] args) throws SQLException {
        if (!WITH_SQL.contains(method) || args == null || args.length == 0 || !(args[0] instanceof String sql)) {
            return;
        }
        Optional<String> control = TransactionControl.find(sql, ddlCommits);
        if (control.isPresent()) {
            String call = "SQL " + control.get();
            if (refused == null) {
                refused = call;
            }
            throw new SQLException(
                    call + " refused: it would end the fenced transaction, which belongs to the gate (refused as SQL:"
                            + " COMMIT, ROLLBACK (ROLLBACK TO SAVEPOINT is fine), BEGIN, START TRANSACTION, END, ABORT,"
                            + " XA, PREPARE TRANSACTION, SET autocommit"
                            + (ddlCommits
                                    ? "; on this database also DDL, which commits by itself: run it before or"
                                            + " after the fenced write"
                                    : "")
                            + "; a value that holds ';' must be a parameter)",
                    "25000");
        }
    }

    /** {@code equals} and {@code hashCode} of a proxy by identity; {@code toString} names it ({@code what}). */
    private Object objectMethod(Object self, String name, Object[] args, String what) {
        return switch (name) {
            case "equals" -> self == args[0];
            case "hashCode" -> System.identityHashCode(self);
            default -> what + " on " + target;
        };
    }

    /** A statement of the work: its SQL is checked, getConnection() is the guard, and it is closed at the end. */
    private Statement guard(Statement statement, Class<?> type) {
        statements.add(statement);
        Constructor<?> constructor = STATEMENTS.get(type);
        InvocationHandler handler = (self, method, args) -> {
            String name = method.getName();
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(self, name, args, "fenced statement");
            }
            if (name.equals("getConnection")) {
                return proxy;
            }
            if (over && !name.equals("close") && !name.equals("isClosed")) {
                throw new SQLException(
                        name + " refused: this fenced transaction is over; the statement was only lent to"
                                + " the work while it ran",
                        "25000");
            }
            checkSql(name, args);
            markBefore(name, args, true);
            Object result;
            try {
                result = method.invoke(statement, args);
            } catch (InvocationTargetException e) {
                throw failed(e.getCause());
            }
            return result instanceof ResultSet rows ? results(rows, (Statement) self) : result;
        };
        return (Statement)
                (constructor != null
                        ? newProxy(constructor, handler)
                        : Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    /**
     * A result set of the work's statement {@code owner}: {@code getStatement()} is {@code owner}; before the work gets
     * anything that reaches the driver ({@code unwrap}, a nested result set, an {@code Array}, {@code Ref} or
     * {@code Struct}, whose own result sets and statements are the driver's), the lazy mark is taken.
     */
    private ResultSet results(ResultSet rows, Statement owner) {
        return (ResultSet) newProxy(RESULT_SET, (InvocationHandler) (self, method, args) -> {
            String name = method.getName();
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(self, name, args, "fenced result set");
            }
            if (name.equals("getStatement")) {
                return owner;
            }
            if (name.equals("unwrap")) {
                markNow();
            }
            Object value;
            try {
                value = method.invoke(rows, args);
            } catch (InvocationTargetException e) {
                throw failed(e.getCause());
            }
            if (value instanceof ResultSet
                    || value instanceof Array
                    || value instanceof Ref
                    || value instanceof Struct) {
                markNow(); // before the work holds it: a getter cannot have ended the transaction
            }
            return value;
        });
    }
}
