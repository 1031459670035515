package dev.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's provider contract, as its own test support states it (re-expressed here, run on our providers): lock
 * is empty while another holder's lock is valid; a lock is released at unlock but not before lockAtLeastFor; it
 * expires on its own at lockAtMostFor; extend returns a new lock and the old handle may neither unlock nor extend; an
 * expired lock cannot be extended; eight threads incrementing two counters under two locks never lose an increment.
 */
abstract class ShedLockContract extends ProviderSupport {

    @Test
    void aLockIsHeldUntilItIsUnlocked() {
        FencedSimpleLock lock = lock(Duration.ofMinutes(5));
        assertLocked(name);
        lock.unlock();
        assertUnlocked(name);
    }

    @Test
    void aSecondLockOfTheSameNameIsEmptyWhileTheFirstIsHeldInThisProcessOrAnother() {
        FencedSimpleLock lock = lock(Duration.ofMinutes(5));
        assertThat(provider().lock(config(name))).isEmpty();
        assertThat(otherProcess().lock(config(name))).isEmpty();
        lock.unlock();
    }

    @Test
    void twoNamesAreTwoIndependentLocks() {
        FencedSimpleLock first = lock(Duration.ofMinutes(5));
        FencedSimpleLock second = lock(provider(), name + "-2", Duration.ofMinutes(5), Duration.ZERO);
        first.unlock();
        assertLocked(name + "-2");
        second.unlock();
    }

    @Test
    void aLockCanBeTakenAgainRightAfterItsUnlock() {
        for (int i = 0; i < 10; i++) {
            FencedSimpleLock lock = lock(Duration.ofMinutes(5));
            assertThat(provider().lock(config(name))).as("round %d", i).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void aLockExpiresOnItsOwnAtLockAtMostFor() {
        lock(Duration.ofMillis(100)); // never unlocked: its holder died
        pause(Duration.ofMillis(250));
        assertUnlocked(name);
    }

    @Test
    void anUnlockKeepsTheLockUntilLockAtLeastFor() {
        FencedSimpleLock lock = lock(provider(), name, Duration.ofSeconds(8), Duration.ofSeconds(3));
        lock.unlock();
        assertThat(provider().lock(config(name))).as("within lockAtLeastFor").isEmpty();
        assertLocked(name);
        pause(Duration.ofMillis(3_300)); // lockAtLeastFor passes
        assertUnlocked(name);
    }

    @Test
    void eightThreadsIncrementingTwoCountersUnderTwoLocksNeverLoseAnIncrement() throws Exception {
        int threads = 8;
        int iterations = 25;
        LockingTaskExecutor[] processes = {
            new DefaultLockingTaskExecutor(provider()), new DefaultLockingTaskExecutor(otherProcess())
        };
        AtomicInteger[] counters = {new AtomicInteger(), new AtomicInteger()};
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int job = t % 2;
                LockingTaskExecutor executor = processes[(t / 2) % 2];
                LockConfiguration config = config(name + "-" + job, Duration.ofMinutes(5), Duration.ofMillis(5));
                done.add(pool.submit(() -> {
                    int finished = 0;
                    while (finished < iterations) {
                        AtomicInteger ran = new AtomicInteger();
                        executor.executeWithLock(
                                (Runnable) () -> {
                                    int seen = counters[job].get();
                                    pause(Duration.ofMillis(1)); // the work between the read and the write
                                    counters[job].set(seen + 1);
                                    ran.incrementAndGet();
                                },
                                config);
                        finished += ran.get();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counters[0].get()).isEqualTo(threads / 2 * iterations);
        assertThat(counters[1].get()).isEqualTo(threads / 2 * iterations);
    }

    @Test
    void anExtensionKeepsTheLockPastItsFirstLockAtMostFor() {
        FencedSimpleLock lock = lock(Duration.ofSeconds(2));
        FencedSimpleLock extended = extended(lock, Duration.ofSeconds(10), Duration.ZERO);
        pause(Duration.ofMillis(2_300)); // the task runs past the first lockAtMostFor
        assertLocked(name);
        extended.unlock();
        assertUnlocked(name);
    }

    @Test
    void aLockCanBeExtendedSeveralTimes() {
        FencedSimpleLock lock = lock(Duration.ofSeconds(2));
        FencedSimpleLock extended = lock;
        for (int i = 0; i < 3; i++) {
            extended = extended(extended, Duration.ofSeconds(10), Duration.ZERO);
        }
        pause(Duration.ofMillis(2_300)); // past the first lockAtMostFor
        assertLocked(name);
        extended.unlock();
        assertUnlocked(name);
    }

    @Test
    void anUnlockedLockCannotBeExtended() {
        FencedSimpleLock lock = lock(Duration.ofSeconds(10));
        lock.unlock();
        assertUnlocked(name);
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anExpiredLockCannotBeExtended() {
        FencedSimpleLock lock = lock(Duration.ofMillis(2)); // a name never locked before, for 2 ms: granted
        pause(Duration.ofMillis(20)); // the task outlives its lock
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertUnlocked(name);
    }

    @Test
    void anExtensionSetsANewLockAtLeastFor() {
        FencedSimpleLock lock = lock(Duration.ofSeconds(10));
        extended(lock, Duration.ofSeconds(10), Duration.ofSeconds(9)).unlock();
        assertLocked(name);
    }

    @Test
    void theOldHandleOfAnExtendedLockCanNeitherExtendNorUnlock() {
        FencedSimpleLock lock = lock(Duration.ofSeconds(10));
        FencedSimpleLock extended = extended(lock, Duration.ofSeconds(10), Duration.ZERO);
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ofSeconds(9)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertLocked(name);
        extended.unlock();
        assertThatThrownBy(extended::unlock).isInstanceOf(IllegalStateException.class);
        assertUnlocked(name);
    }

    @Test
    void badInputIsRefusedNamingTheField() {
        ExtensibleLockProvider provider = provider();
        assertThatThrownBy(() -> provider.lock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockConfiguration");
        assertThatThrownBy(() -> provider.lock(config("  ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> provider.lock(config(name, Duration.ZERO, Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor");
        // ShedLock's own checks: a null or empty name, a negative lockAtMostFor
        assertThatThrownBy(() -> config(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> config("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> config(name, Duration.ofSeconds(-1), Duration.ofSeconds(-2)))
                .isInstanceOf(IllegalArgumentException.class);

        FencedSimpleLock lock = lock(Duration.ofMinutes(5));
        assertThatThrownBy(() -> lock.extend(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor");
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor");
        assertLocked(name); // a refused extension changed nothing: the handle still works
        lock.unlock();
        assertUnlocked(name);
    }

    @Test
    void aLockHandleIsAFencedSimpleLockOfItsName() {
        Optional<SimpleLock> lock = provider().lock(config(name));
        assertThat(lock).containsInstanceOf(FencedSimpleLock.class);
        FencedSimpleLock fenced = (FencedSimpleLock) lock.orElseThrow();
        assertThat(fenced.name()).isEqualTo(name);
        assertThat(fenced.token()).isPositive();
        fenced.unlock();
    }
}
