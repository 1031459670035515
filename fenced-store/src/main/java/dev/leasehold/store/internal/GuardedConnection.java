package dev.leasehold.store.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * The connection a fenced work gets: the gate's transaction, which the work may use but not end or reconfigure.
 * {@code commit}, {@code rollback()} (rolling back to a savepoint is fine), {@code setAutoCommit}, {@code close},
 * {@code abort}, {@code setTransactionIsolation} and {@code setReadOnly} throw an {@link SQLException} naming the
 * method, and the refusal is remembered: a work that swallows it still has its transaction rolled back. Once the
 * transaction is over, every call is refused (a work that kept the connection cannot reach the next borrower's).
 *
 * <p>Not a sandbox: {@code unwrap}, {@code Statement.getConnection()} and {@code DatabaseMetaData.getConnection()}
 * reach the driver's connection. Thread-safety: the flags are volatile; the connection itself is as thread-safe as
 * the driver's (use it from the work's thread).
 */
public final class GuardedConnection implements InvocationHandler {

    private static final Set<String> REFUSED =
            Set.of("commit", "setAutoCommit", "close", "abort", "setTransactionIsolation", "setReadOnly");

    private final Connection target;
    private final Connection proxy;
    private volatile String refused;
    private volatile boolean over;

    public GuardedConnection(Connection target) {
        this.target = target;
        this.proxy = (Connection)
                Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, this);
    }

    public Connection connection() {
        return proxy;
    }

    /** The first method the work called and was refused, or null. */
    public String refused() {
        return refused;
    }

    /** The transaction is over: refuse everything from now on. */
    public void end() {
        over = true;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (method.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> self == args[0];
                case "hashCode" -> System.identityHashCode(self);
                default -> "fenced transaction on " + target;
            };
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
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
