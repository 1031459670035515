package dev.leasehold.store.testing;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A data source that writes down each call on its connections that makes PgJDBC talk to the server: a statement's
 * {@code execute*} (with the SQL it runs) and the connection's {@code commit} and {@code rollback}. With auto-commit
 * off PgJDBC sends its BEGIN with the first statement and nothing for {@code setAutoCommit(false)}, so on PostgreSQL
 * each entry is one round trip.
 */
public final class RoundTrips extends PlainDataSource {

    private final DataSource target;
    private final List<String> calls = new CopyOnWriteArrayList<>();

    public RoundTrips(DataSource target) {
        this.target = target;
    }

    /** The calls so far, in order: the SQL of each execution, or "COMMIT" / "ROLLBACK". */
    public List<String> calls() {
        return List.copyOf(calls);
    }

    public void clear() {
        calls.clear();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection real = target.getConnection();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "commit" -> calls.add("COMMIT");
                        case "rollback" -> calls.add("ROLLBACK");
                        default -> {}
                    }
                    Object result = invoke(real, method, args);
                    if (result instanceof Statement statement) {
                        String prepared = args != null && args.length > 0 && args[0] instanceof String sql ? sql : null;
                        return counting(statement, method.getReturnType(), prepared);
                    }
                    return result;
                });
    }

    private Object counting(Statement real, Class<?> type, String prepared) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                calls.add(args != null && args.length > 0 && args[0] instanceof String sql ? sql : prepared);
            }
            return invoke(real, method, args);
        });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
