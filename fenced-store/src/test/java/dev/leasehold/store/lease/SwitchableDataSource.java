package dev.leasehold.store.lease;

import dev.leasehold.testkit.PlainDataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * One participant's way to the database, which a test can cut: {@link #cutOff()} makes every new connection fail
 * (the database unreachable), {@link #hang()} makes every new connection wait until {@link #restore()} (a network
 * that swallows packets). Counts the statements prepared through it, and lets a test wait for a number of them.
 * Thread-safe.
 */
final class SwitchableDataSource extends PlainDataSource {

    private enum Mode {
        OPEN,
        CUT_OFF,
        HANGING
    }

    private final DataSource target;
    private final AtomicReference<Mode> mode = new AtomicReference<>(Mode.OPEN);
    private volatile CountDownLatch hanging = new CountDownLatch(0);
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    SwitchableDataSource(DataSource target) {
        this.target = target;
    }

    void cutOff() {
        mode.set(Mode.CUT_OFF);
    }

    void hang() {
        hanging = new CountDownLatch(1);
        mode.set(Mode.HANGING);
    }

    void restore() {
        mode.set(Mode.OPEN);
        hanging.countDown();
    }

    /** Statements prepared so far. */
    long statements() {
        return statements.get();
    }

    /** Connections refused so far (while cut off). */
    long refused() {
        return refused.get();
    }

    /** Waits until at least {@code n} statements were prepared; false on timeout. */
    boolean awaitStatements(long n, long timeout, TimeUnit unit) throws InterruptedException {
        return awaitCount(statements, n, timeout, unit);
    }

    /** Waits until at least {@code n} connections were refused; false on timeout. */
    boolean awaitRefused(long n, long timeout, TimeUnit unit) throws InterruptedException {
        return awaitCount(refused, n, timeout, unit);
    }

    private boolean awaitCount(AtomicLong count, long n, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (count) {
            while (count.get() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(count, left);
            }
        }
        return true;
    }

    private void bump(AtomicLong count) {
        synchronized (count) {
            count.incrementAndGet();
            count.notifyAll();
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        Mode now = mode.get();
        if (now == Mode.HANGING) {
            try {
                hanging.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted while the network hung", "08001", e);
            }
        } else if (now == Mode.CUT_OFF) {
            bump(refused);
            throw new SQLException("cut off from the database (test)", "08001");
        }
        Connection real = target.getConnection();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("prepare")) {
                        bump(statements);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
