package dev.leasehold.scenarios.incidents;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * Lets a child JVM be stopped between transactions: its workers make each database transaction inside
 * {@link #transaction}; {@link #quiesce} waits until none is in flight and holds new ones back until {@link #resume}.
 * Used where the database cannot end the idle transaction of a process frozen inside it (H2: no server-side idle
 * bound), so that a {@code kill -STOP} there does not hold a row lock the new owner waits for. Thread-safe;
 * {@link #quiesce} and {@link #resume} are called on one thread (the child's stdin reader, {@link #obey}).
 */
public final class Quiescence {

    /** A database transaction of a worker. */
    @FunctionalInterface
    public interface Transaction {
        /**
         * @throws Exception what the transaction throws, passed on
         */
        void run() throws Exception;
    }

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);

    /**
     * Runs {@code tx} unless the child is quiescing or quiet, else once it is resumed.
     *
     * @throws Exception what {@code tx} throws, or {@link InterruptedException} if interrupted while held back
     */
    public void transaction(Transaction tx) throws Exception {
        lock.readLock().lockInterruptibly();
        try {
            tx.run();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * The database behind {@code jdbcUrl} if it cannot end the idle transaction of a frozen process (so the scenario
     * must stop its child between transactions), or null (PostgreSQL: the store's idle bound ends it). MariaDB's
     * transactions have the store's idle bound too now, but its scenarios still stop the child between transactions:
     * that a frozen holder's transaction ends there is checked by the store's MariaDbFrozenHolderTest.
     */
    public static String needed(String jdbcUrl) {
        if (jdbcUrl.startsWith("jdbc:postgresql:")) {
            return null;
        }
        return jdbcUrl.startsWith("jdbc:h2:") ? "H2" : jdbcUrl.split(":")[1];
    }

    /**
     * Obeys the scenario's commands on {@code in}, one per line, until it closes: {@code QUIESCE} (answered
     * {@code QUIET} once no transaction is in flight) and {@code RESUME}.
     */
    public void obey(InputStream in, Consumer<String> say) throws IOException {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String command;
            while ((command = lines.readLine()) != null) {
                switch (command) {
                    case "QUIESCE" -> {
                        quiesce();
                        say.accept("QUIET");
                    }
                    case "RESUME" -> resume();
                    default -> say.accept("UNKNOWN command " + command);
                }
            }
        }
    }

    /** Holds new transactions back and waits until none is in flight. */
    void quiesce() {
        if (!lock.isWriteLockedByCurrentThread()) {
            lock.writeLock().lock();
        }
    }

    /** Lets held-back transactions go on; nothing if not quiet. */
    void resume() {
        if (lock.isWriteLockedByCurrentThread()) {
            lock.writeLock().unlock();
        }
    }
}
