package dev.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What fencing adds to ShedLock's contract, on every store: tokens that only grow (across processes and restarts),
 * an extension that keeps its grant's token, a late holder refused at the gate, the task's token in {@link
 * FencedLocks} (innermost wins, cleared in every path), and ShedLock's {@link KeepAliveLockProvider} on top.
 */
abstract class FencedLockProviderContract extends ShedLockContract {

    /** A pooled scheduler thread: one thread that runs one task after another. */
    private ExecutorService scheduler;

    @BeforeEach
    void startScheduler() {
        scheduler = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    <T> T onScheduler(Callable<T> work) throws Exception {
        return scheduler.submit(work).get();
    }

    /** Runs {@code work} on a thread of its own (another process's), and waits for it. */
    static <T> T onAnotherThread(Callable<T> work) {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            return thread.submit(work).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void everyAcquisitionHasAHigherTokenThanEveryEarlierOneAcrossProcessesAndRestarts() {
        List<Long> tokens = new ArrayList<>();
        for (var process : List.of(provider(), otherProcess(), restartedProcess(), provider())) {
            FencedSimpleLock lock = lock(process, name, Duration.ofMinutes(5), Duration.ZERO);
            tokens.add(lock.token());
            lock.unlock();
        }
        FencedSimpleLock expiring = lock(Duration.ofMillis(100));
        tokens.add(expiring.token());
        pause(Duration.ofMillis(250)); // it expires, never unlocked
        FencedSimpleLock taker = lock(otherProcess(), name, Duration.ofMinutes(5), Duration.ZERO);
        tokens.add(taker.token());
        FencedSimpleLock extension = extended(taker, Duration.ofMinutes(5), Duration.ZERO);
        extension.unlock();
        tokens.add(lock(restartedProcess(), name, Duration.ofMinutes(5), Duration.ZERO)
                .token());

        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void anExtensionIsTheSameGrantWithTheSameTokenAndName() {
        FencedSimpleLock lock = lock(Duration.ofMinutes(5));
        FencedSimpleLock once = extended(lock, Duration.ofMinutes(5), Duration.ZERO);
        FencedSimpleLock twice = extended(once, Duration.ofMinutes(5), Duration.ofSeconds(1));
        assertThat(List.of(once.token(), twice.token())).containsOnly(lock.token());
        assertThat(List.of(once.name(), twice.name())).containsOnly(name);
        twice.unlock();
    }

    /**
     * The incident this module exists for. A job's lock runs out while its task is paused; another replica takes the
     * lock with a higher token and fences the resource; the paused task wakes, cannot extend (no new token), and its
     * late write is refused at the gate.
     */
    @Test
    void aTaskThatOutlivedItsLockIsRefusedAtTheGateOnceTheNextHolderAdvancedIt() {
        FenceGate gate = new FenceGate(resourceDatabase());
        String resource = "batch-" + name.hashCode();
        FencedSimpleLock late = lock(Duration.ofMillis(150));
        gate.advance(resource, late.token());
        gate.write(resource, late.token(), tx -> {});

        pause(Duration.ofMillis(400)); // the task is paused (GC, a frozen VM) past lockAtMostFor
        FencedSimpleLock next = lock(otherProcess(), name, Duration.ofMinutes(5), Duration.ZERO);
        assertThat(next.token()).isGreaterThan(late.token());
        gate.advance(resource, next.token());

        assertThat(late.extend(Duration.ofMinutes(5), Duration.ZERO)).isEmpty();
        assertThatThrownBy(() -> gate.write(resource, late.token(), tx -> {}))
                .isInstanceOf(StaleTokenException.class)
                .satisfies(e ->
                        assertThat(((StaleTokenException) e).highestToken()).isEqualTo(next.token()));
        gate.write(resource, next.token(), tx -> {});
        assertLocked(name);
        next.unlock();
    }

    @Test
    void theUnlockOfAHolderThatLostItsLockLeavesTheNewHolderAlone() {
        FencedSimpleLock late = lock(Duration.ofMillis(100));
        pause(Duration.ofMillis(250)); // past lockAtMostFor
        FencedSimpleLock next = lock(otherProcess(), name, Duration.ofMinutes(5), Duration.ZERO);
        late.unlock();
        assertThat(restartedProcess().lock(config(name))).isEmpty();
        next.unlock();
        assertUnlocked(name);
    }

    @Test
    void theTaskSeesItsLocksTokenInsideAndNoTokenOutside() throws Exception {
        Recording recording = new Recording(provider());
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(recording);
        AtomicReference<Long> inside = new AtomicReference<>();
        AtomicReference<OptionalLong> byName = new AtomicReference<>();
        onScheduler(() -> {
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            executor.executeWithLock(
                    (Runnable) () -> {
                        inside.set(FencedLocks.currentToken());
                        byName.set(FencedLocks.currentToken(name));
                    },
                    config(name));
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            assertThat(FencedLocks.currentToken(name)).isEmpty();
            return null;
        });
        assertThat(inside.get()).isEqualTo(recording.last().token());
        assertThat(byName.get()).hasValue(recording.last().token());
        assertUnlocked(name);
    }

    @Test
    void nestedLocksGiveTheInnermostTokenAndTheOuterOneAgainAfterwards() throws Exception {
        Recording recording = new Recording(provider());
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(recording);
        String inner = name + "-inner";
        List<Long> seen = new ArrayList<>();
        onScheduler(() -> {
            executor.executeWithLock(
                    (Runnable) () -> {
                        seen.add(FencedLocks.currentToken());
                        executor.executeWithLock(
                                (Runnable) () -> {
                                    seen.add(FencedLocks.currentToken());
                                    seen.add(FencedLocks.currentToken(name).orElseThrow());
                                    // the same name again: ShedLock runs it without locking, under the outer lock
                                    executor.executeWithLock(
                                            (Runnable) () -> seen.add(
                                                    FencedLocks.currentToken(name)
                                                            .orElseThrow()),
                                            config(name));
                                },
                                config(inner));
                        seen.add(FencedLocks.currentToken());
                        assertThat(FencedLocks.currentToken(inner)).isEmpty();
                    },
                    config(name));
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            return null;
        });
        long outerToken = recording.all().get(0).token();
        long innerToken = recording.all().get(1).token();
        assertThat(recording.all()).hasSize(2);
        assertThat(seen).containsExactly(outerToken, innerToken, outerToken, outerToken, outerToken);
    }

    @Test
    void aTaskThatThrowsLeavesNoTokenOnItsPooledThread() throws Exception {
        Recording recording = new Recording(provider());
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(recording);
        onScheduler(() -> {
            assertThatThrownBy(() -> executor.executeWithLock(
                            (Runnable) () -> {
                                throw new IllegalStateException("the job failed");
                            },
                            config(name)))
                    .hasMessage("the job failed");
            return null;
        });
        Optional<Long> afterwards = onScheduler(() -> {
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            assertThat(FencedLocks.currentToken(name)).isEmpty();
            AtomicReference<Long> next = new AtomicReference<>();
            executor.executeWithLock((Runnable) () -> next.set(FencedLocks.currentToken()), config(name));
            return Optional.of(next.get());
        });
        assertThat(afterwards).hasValue(recording.last().token());
        assertThat(recording.last().token())
                .isGreaterThan(recording.all().get(0).token());
        assertUnlocked(name);
    }

    @Test
    void lockExtenderInsideTheTaskKeepsTheToken() throws Exception {
        Recording recording = new Recording(provider());
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(recording);
        List<Long> seen = new ArrayList<>();
        onScheduler(() -> {
            executor.executeWithLock(
                    (Runnable) () -> {
                        seen.add(FencedLocks.currentToken());
                        LockExtender.extendActiveLock(Duration.ofMinutes(5), Duration.ZERO);
                        seen.add(FencedLocks.currentToken());
                    },
                    config(name, Duration.ofSeconds(30), Duration.ZERO));
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            return null;
        });
        assertThat(seen)
                .containsExactly(recording.last().token(), recording.last().token());
        assertUnlocked(name);
    }

    @Test
    void aTaskWhoseExtensionFindsTheLockLostHoldsNoTokenAnyMore() throws Exception {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider());
        List<Object> seen = new ArrayList<>();
        onScheduler(() -> {
            assertThatThrownBy(() -> executor.executeWithLock(
                            (Runnable) () -> {
                                seen.add(FencedLocks.currentToken());
                                pause(Duration.ofMillis(300)); // the task runs past lockAtMostFor
                                onAnotherThread(() -> lock(otherProcess(), name, Duration.ofMinutes(5), Duration.ZERO));
                                try {
                                    LockExtender.extendActiveLock(Duration.ofMinutes(5), Duration.ZERO);
                                } catch (LockExtender.LockCanNotBeExtendedException e) {
                                    seen.add("lost");
                                }
                                seen.add(FencedLocks.currentToken(name).isPresent());
                            },
                            config(name, Duration.ofMillis(100), Duration.ZERO)))
                    // ShedLock's own behaviour: its finally unlocks the handle that the failed extension used up
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            return null;
        });
        assertThat(seen).hasSize(3).element(0).isInstanceOf(Long.class);
        assertThat(seen.subList(1, 3)).containsExactly("lost", false);
    }

    @Test
    void aLockUnlockedOnAnotherThreadLeavesNoTokenOnTheThreadThatTookIt() throws Exception {
        FencedSimpleLock lock = onScheduler(() -> lock(Duration.ofMinutes(5)));
        assertThat(onScheduler(() -> FencedLocks.currentToken(name))).hasValue(lock.token());
        lock.unlock(); // on the test's thread
        assertThat(onScheduler(() -> FencedLocks.currentToken(name))).isEmpty();
        onScheduler(() -> {
            assertThatThrownBy(FencedLocks::currentToken).isInstanceOf(IllegalStateException.class);
            return null;
        });
    }

    @Test
    void keepAliveLockProviderWorksOnTop() throws Exception {
        ManualKeepAlive keepAlive = new ManualKeepAlive();
        try {
            KeepAliveLockProvider provider = new KeepAliveLockProvider(provider(), keepAlive);
            Optional<SimpleLock> lock = provider.lock(config(name, Duration.ofSeconds(30), Duration.ZERO));
            assertThat(lock).isPresent();
            long token = FencedLocks.currentToken(name).orElseThrow();
            keepAlive.extendNow(); // two periods' extensions, on this thread
            keepAlive.extendNow();
            assertThat(FencedLocks.currentToken(name)).hasValue(token);
            assertLocked(name);
            lock.get().unlock(); // unlocks the latest extension: throws if an extension had failed
            assertThat(FencedLocks.currentToken(name)).isEmpty();
            assertUnlocked(name);
        } finally {
            keepAlive.shutdownNow();
        }
    }

    /** The provider under test, recording the locks it grants (so a test can compare tokens). */
    static final class Recording implements LockProvider {
        private final LockProvider provider;
        private final List<FencedSimpleLock> granted = new ArrayList<>();

        Recording(LockProvider provider) {
            this.provider = provider;
        }

        @Override
        public synchronized Optional<SimpleLock> lock(net.javacrumbs.shedlock.core.LockConfiguration config) {
            Optional<SimpleLock> lock = provider.lock(config);
            lock.ifPresent(l -> granted.add((FencedSimpleLock) l));
            return lock;
        }

        synchronized List<FencedSimpleLock> all() {
            return List.copyOf(granted);
        }

        synchronized FencedSimpleLock last() {
            return granted.get(granted.size() - 1);
        }
    }
}
