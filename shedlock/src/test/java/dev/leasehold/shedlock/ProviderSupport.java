package dev.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * What the contract suites need from a store, and their helpers. A subclass gives two "processes" on one store (two
 * providers with pools or clients of their own), a way to start a fresh one (a restart), and the database of the
 * gate in front of the resource the tasks write. Each test gets lock names of its own.
 */
@Timeout(120)
abstract class ProviderSupport {

    private static final AtomicInteger tests = new AtomicInteger();

    /** @return process A's provider (the same one for the whole test) */
    protected abstract ExtensibleLockProvider provider();

    /** @return process B: another provider on the same store, with a pool or client of its own */
    protected abstract ExtensibleLockProvider otherProcess();

    /** @return a new process on the same store (a fresh pool or client), as after a restart; the subclass closes it */
    protected abstract ExtensibleLockProvider restartedProcess();

    /** @return the database of the fence gate in front of the resource the tasks write (schema installed) */
    protected abstract javax.sql.DataSource resourceDatabase();

    /** This test's lock name. */
    String name;

    @BeforeEach
    void nameLocks(TestInfo test) {
        name = test.getTestMethod().orElseThrow().getName() + "-" + tests.incrementAndGet() + "-" + System.nanoTime();
    }

    /**
     * One lock and unlock on each process before the tests, so that no test's timing pays for a first connection, a
     * first statement or the first write of a fresh ZooKeeper server.
     */
    void warmUp() {
        for (ExtensibleLockProvider process : List.of(provider(), otherProcess())) {
            process.lock(config("warm-up", Duration.ofSeconds(30), Duration.ZERO))
                    .ifPresent(SimpleLock::unlock);
        }
    }

    static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    static LockConfiguration config(String name) {
        return config(name, Duration.ofMinutes(5), Duration.ZERO);
    }

    /** Locks {@code name} on {@code provider}, which must grant it, as a fenced lock. */
    static FencedSimpleLock lock(ExtensibleLockProvider provider, String name, Duration atMost, Duration atLeast) {
        Optional<SimpleLock> lock = provider.lock(config(name, atMost, atLeast));
        assertThat(lock).as("lock '%s' granted by %s", name, provider).isPresent();
        assertThat(lock.get()).isInstanceOf(FencedSimpleLock.class);
        return (FencedSimpleLock) lock.get();
    }

    FencedSimpleLock lock(Duration atMost) {
        return lock(provider(), name, atMost, Duration.ZERO);
    }

    static FencedSimpleLock extended(SimpleLock lock, Duration atMost, Duration atLeast) {
        Optional<SimpleLock> extended = lock.extend(atMost, atLeast);
        assertThat(extended).as("extension of %s", lock).isPresent();
        assertThat(extended.get()).isInstanceOf(FencedSimpleLock.class);
        return (FencedSimpleLock) extended.get();
    }

    /** Another process cannot take {@code lockName} now. */
    void assertLocked(String lockName) {
        assertThat(otherProcess().lock(config(lockName)))
                .as("'%s' held", lockName)
                .isEmpty();
    }

    /** Another process can take {@code lockName} now (and lets it go again). */
    void assertUnlocked(String lockName) {
        Optional<SimpleLock> lock = otherProcess().lock(config(lockName));
        assertThat(lock).as("'%s' free", lockName).isPresent();
        lock.get().unlock();
    }

    /** Stands for a task (or a pause) that runs for {@code duration}: the point of the test, not synchronisation. */
    static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
