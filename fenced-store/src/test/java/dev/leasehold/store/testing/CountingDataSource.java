package dev.leasehold.store.testing;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A small pool stand-in: at most {@code size} connections open at once (a leak shows as the next caller failing),
 * and a count of those still open, for asserting that every connection is returned on every path.
 */
public final class CountingDataSource extends PlainDataSource {

    private final DataSource target;
    private final Semaphore permits;
    private final AtomicInteger open = new AtomicInteger();

    public CountingDataSource(DataSource target, int size) {
        this.target = target;
        this.permits = new Semaphore(size);
    }

    public int open() {
        return open.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (!permits.tryAcquire()) {
            throw new SQLException("pool exhausted: " + open.get() + " connection(s) were never returned");
        }
        Connection real;
        try {
            real = target.getConnection();
        } catch (SQLException e) {
            permits.release();
            throw e;
        }
        open.incrementAndGet();
        boolean[] closed = {false};
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        synchronized (closed) {
                            if (!closed[0]) {
                                closed[0] = true;
                                open.decrementAndGet();
                                permits.release();
                            }
                        }
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
