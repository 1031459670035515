package dev.leasehold.scenarios.bench;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import javax.sql.DataSource;

/** A fixed pool of connections for the benchmarks, so that connecting is not what gets measured. */
final class BenchPool extends PlainDataSource implements AutoCloseable {

    private final BlockingQueue<Connection> idle;
    private final int size;

    BenchPool(DataSource target, int size) throws SQLException {
        this.size = size;
        idle = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            idle.add(target.getConnection());
        }
    }

    /** How many connections the pool holds. */
    int size() {
        return size;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection real;
        try {
            real = idle.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a pooled connection", e);
        }
        boolean[] returned = {false};
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        if (!returned[0]) {
                            returned[0] = true;
                            if (!real.getAutoCommit()) {
                                real.rollback();
                                real.setAutoCommit(true);
                            }
                            idle.add(real);
                        }
                        return null;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public void close() {
        for (Connection connection : idle) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // closing is best effort
            }
        }
    }
}
