package dev.leasehold.store.testing;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * Records every statement the store prepares, with the parameters bound to it, so a test can ask the database how
 * it would run exactly those statements (EXPLAIN) without knowing how the store builds them.
 */
public final class RecordingDataSource extends PlainDataSource {

    /** A prepared statement and its parameters, by position (1-based). */
    public record Recorded(String sql, Map<Integer, Object> params) {
        public List<Object> paramList() {
            return new ArrayList<>(params.values());
        }
    }

    private final DataSource target;
    private final List<Recorded> recorded = new CopyOnWriteArrayList<>();

    public RecordingDataSource(DataSource target) {
        this.target = target;
    }

    public List<Recorded> recorded() {
        return List.copyOf(recorded);
    }

    public void clear() {
        recorded.clear();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection real = target.getConnection();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(real, method, args);
                    if (method.getName().equals("prepareStatement") && result instanceof PreparedStatement ps) {
                        return recording(ps, (String) args[0]);
                    }
                    return result;
                });
    }

    private PreparedStatement recording(PreparedStatement real, String sql) {
        Map<Integer, Object> params = new TreeMap<>();
        recorded.add(new Recorded(sql, params));
        return (PreparedStatement) Proxy.newProxyInstance(
                PreparedStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("set")
                            && args != null
                            && args.length >= 2
                            && args[0] instanceof Integer index) {
                        params.put(index, args[1]);
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
