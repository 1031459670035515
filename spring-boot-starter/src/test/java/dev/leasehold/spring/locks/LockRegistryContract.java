package dev.leasehold.spring.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spring Integration's {@code LockRegistry} contract, as its own {@code JdbcLockRegistryTests}, {@code
 * JdbcLockRegistryDifferentClientTests} and {@code ZookeeperLockRegistryTests} exercise it, re-expressed against
 * {@link FencedLockRegistry}, plus the tokens. A subclass gives registries on one store; two registries from {@link
 * #newRegistry()} stand for two processes (separate clients or pools).
 */
@Timeout(60)
abstract class LockRegistryContract {

    private final ExecutorService threads = Executors.newCachedThreadPool();
    protected final String key = "key-" + UUID.randomUUID().toString().substring(0, 8);

    /** A registry with a client or pool of its own: another process, as far as the store can tell. */
    protected abstract FencedLockRegistry newRegistry();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private <T> CompletableFuture<T> inThread(java.util.concurrent.Callable<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        threads.execute(() -> {
            try {
                result.complete(work.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Test
    void theSameKeyGivesTheSameLockObject() {
        FencedLockRegistry registry = newRegistry();
        assertThat(registry.obtain(key)).isSameAs(registry.obtain(key));
        assertThat(registry.obtain(key)).isNotSameAs(registry.obtain(key + "-other"));
    }

    @Test
    void lockAndUnlockManyTimes() {
        FencedLockRegistry registry = newRegistry();
        for (int i = 0; i < 10; i++) {
            FencedLock lock = registry.obtain(key);
            lock.lock();
            try {
                assertThat(lock.token()).isPositive();
            } finally {
                lock.unlock();
            }
        }
    }

    @Test
    void lockInterruptiblyAndUnlock() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLock lock = registry.obtain(key);
        lock.lockInterruptibly();
        assertThat(inThread(() -> newRegistry().obtain(key).tryLock()).get()).isFalse();
        lock.unlock();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void aReentrantHoldNeedsAsManyUnlocksAndKeepsItsToken() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLockRegistry other = newRegistry();
        FencedLock lock = registry.obtain(key);
        lock.lock();
        long token = lock.token();
        lock.lockInterruptibly();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.token()).isEqualTo(token);
        lock.unlock();
        lock.unlock();
        assertThat(inThread(() -> other.obtain(key).tryLock()).get())
                .as("still held after two of three unlocks")
                .isFalse();
        lock.unlock();
        FencedLock theirs = other.obtain(key);
        assertThat(inThread(() -> {
                            boolean got = theirs.tryLock(5, TimeUnit.SECONDS);
                            long next = theirs.token();
                            theirs.unlock();
                            return got ? next : -1;
                        })
                        .get())
                .isGreaterThan(token);
    }

    @Test
    void twoKeysAreTwoLocks() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLockRegistry other = newRegistry();
        FencedLock one = registry.obtain(key);
        FencedLock two = registry.obtain(key + "-two");
        one.lock();
        two.lock();
        assertThat(inThread(() -> other.obtain(key).tryLock()
                                || other.obtain(key + "-two").tryLock())
                        .get())
                .isFalse();
        two.unlock();
        assertThat(inThread(() -> other.obtain(key).tryLock()).get()).isFalse();
        one.unlock();
    }

    @Test
    void aSecondThreadFailsToTakeAHeldLock() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLock lock = registry.obtain(key);
        lock.lock();
        try {
            assertThat(inThread(lock::tryLock).get()).isFalse();
            assertThat(inThread(() -> lock.tryLock(Duration.ofMillis(200), Duration.ofSeconds(10)))
                            .get())
                    .isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aSecondThreadWaitsUntilTheFirstUnlocks() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLock lock = registry.obtain(key);
        lock.lock();
        long first = lock.token();
        CountDownLatch waiting = new CountDownLatch(1);
        CompletableFuture<Long> second = inThread(() -> {
            waiting.countDown();
            lock.lock();
            try {
                return lock.token();
            } finally {
                lock.unlock();
            }
        });
        waiting.await();
        assertThat(second).isNotDone();
        lock.unlock();
        assertThat(second.get(20, TimeUnit.SECONDS)).isGreaterThan(first);
    }

    @Test
    void twoRegistriesExcludeEachOtherAndTheirTokensRise() throws Exception {
        FencedLockRegistry a = newRegistry();
        FencedLockRegistry b = newRegistry();
        long last = 0;
        for (int i = 0; i < 3; i++) {
            for (FencedLockRegistry registry : List.of(a, b)) {
                FencedLock lock = registry.obtain(key);
                long token = inThread(() -> {
                            lock.lock();
                            try {
                                return lock.token();
                            } finally {
                                lock.unlock();
                            }
                        })
                        .get();
                assertThat(token).isGreaterThan(last);
                last = token;
            }
        }
    }

    @Test
    void threadsOfTwoRegistriesTakeTurnsWithoutOverlap() throws Exception {
        FencedLockRegistry a = newRegistry();
        FencedLockRegistry b = newRegistry();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = java.util.Collections.synchronizedList(new ArrayList<>());
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            FencedLock lock = (t % 2 == 0 ? a : b).obtain(key);
            workers.add(inThread(() -> {
                for (int i = 0; i < 5; i++) {
                    lock.lock();
                    try {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        tokens.add(lock.token());
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).hasSize(20).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItIsRefused() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLock lock = registry.obtain(key);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        lock.lock();
        try {
            assertThat(inThread(() -> {
                                try {
                                    lock.unlock();
                                    return "unlocked";
                                } catch (IllegalMonitorStateException e) {
                                    return "refused";
                                }
                            })
                            .get())
                    .isEqualTo("refused");
            assertThatThrownBy(() -> inThread(lock::token).join()).hasCauseInstanceOf(IllegalStateException.class);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void tokenIsRefusedToAThreadThatHoldsNothing() {
        FencedLock lock = newRegistry().obtain(key);
        assertThatThrownBy(lock::token)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(key);
    }

    @Test
    void executeLockedRunsTheWorkUnderTheLock() throws Exception {
        FencedLockRegistry registry = newRegistry();
        long token = registry.executeLocked(key, () -> registry.obtain(key).token());
        assertThat(token).isPositive();
        String result = registry.executeLocked(key, Duration.ofSeconds(5), () -> {
            assertThat(inThread(() -> newRegistry().obtain(key).tryLock()).get())
                    .isFalse();
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(registry.obtain(key).tryLock()).as("released after the work").isTrue();
        registry.obtain(key).unlock();
    }

    @Test
    void expireUnusedNeverDropsAHeldLock() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLock held = registry.obtain(key);
        FencedLock idle = registry.obtain(key + "-idle");
        held.lock();
        try {
            registry.expireUnusedOlderThan(0);
            assertThat(registry.obtain(key)).as("held: kept").isSameAs(held);
            assertThat(registry.obtain(key + "-idle")).as("idle: dropped").isNotSameAs(idle);
            assertThat(held.token()).isPositive();
        } finally {
            held.unlock();
        }
        registry.expireUnusedOlderThan(60_000);
        assertThat(registry.obtain(key)).as("used within the age: kept").isSameAs(held);
        registry.expireUnusedOlderThan(0);
        FencedLock again = registry.obtain(key);
        assertThat(again).isNotSameAs(held);
        again.lock();
        again.unlock();
    }

    @Test
    void aReentrantTryLockIsAHeartbeatThatKeepsTheToken() throws Exception {
        FencedLock lock = newRegistry().obtain(key);
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        long token = lock.token();
        for (int i = 0; i < 3; i++) {
            assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
            assertThat(lock.token()).isEqualTo(token);
            lock.unlock();
        }
        lock.unlock();
    }

    @Test
    void keysAndArgumentsAreCheckedAtTheDoor() {
        FencedLockRegistry registry = newRegistry();
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain("a\nb")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain(key).lock(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> registry.obtain(key).newCondition()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> registry.renewLock("never-obtained")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalMonitorStateException.class);
    }
}
