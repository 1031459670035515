package dev.leasehold.spring.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The contract on a database, and what only a ttl brings ({@code JdbcLockRegistryTests} and {@code
 * JdbcLockRegistryDifferentClientTests}): expiry and its loss, renewals, a ttl per lock, and a lock that never joins
 * the caller's transaction. Short ttls are waited out with {@code Thread.sleep}: each such sleep stands for a paused
 * holder.
 */
abstract class JdbcLockRegistryContract extends LockRegistryContract {

    /** A pool of its own on the test database, the lease table installed: another process. */
    protected abstract DataSource newPool();

    /** The store's configuration (table prefix) the schema was installed with. */
    protected StoreConfig config() {
        return StoreConfig.defaults();
    }

    @Override
    protected FencedLockRegistry newRegistry() {
        return FencedLockRegistry.jdbc(newPool(), config(), Duration.ofSeconds(10));
    }

    private FencedLockRegistry registry(Duration ttl) {
        return FencedLockRegistry.jdbc(newPool(), config(), ttl);
    }

    /**
     * The seeds' incident as a lock: A holds with a 300 ms ttl and pauses past it; B takes the lock (higher token) and
     * fences the resource; A's late write is refused, its {@code token()} and {@code unlock()} say the lock was lost.
     */
    @Test
    void aHoldPausedPastItsTtlIsLostAndItsLateWriteRefused() throws Exception {
        FencedLockRegistry a = registry(Duration.ofMillis(300));
        FencedLockRegistry b = newRegistry();
        FenceGate gate = new FenceGate(newPool(), config());
        FencedLock mine = a.obtain(key);
        mine.lock();
        long old = mine.token();
        gate.write(key, old, tx -> {});
        Thread.sleep(600); // A's pause (a GC, a frozen VM) past its ttl
        FencedLock theirs = b.obtain(key);
        long next = CompletableFuture.supplyAsync(() -> {
                    assertThat(theirs.tryLock()).isTrue();
                    gate.advance(key, theirs.token());
                    return theirs.token();
                })
                .get();
        assertThat(next).isGreaterThan(old);
        assertThatThrownBy(() -> gate.write(key, old, tx -> {})).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(mine::token).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(mine::unlock)
                .isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("Lock was released in the store due to expiration");
        assertThat(mine.tryLock())
                .as("the lock object is usable again; B holds it")
                .isFalse();
    }

    @Test
    void anExpiredHoldNobodyTookStillFailsItsUnlock() throws Exception {
        FencedLock lock = registry(Duration.ofMillis(200)).obtain(key);
        lock.lock();
        Thread.sleep(400); // a pause past the ttl
        assertThatThrownBy(lock::token).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    /** LockRegistryLeaderInitiator's loop: tryLock again while holding; false once lost; true again with a new token. */
    @Test
    void aReentrantTryLockAfterExpiryAnswersFalseThenRetakesWithAHigherToken() throws Exception {
        FencedLock mine = registry(Duration.ofMillis(300)).obtain(key);
        FencedLock theirs = newRegistry().obtain(key);
        assertThat(mine.tryLock()).isTrue();
        long first = mine.token();
        assertThat(mine.tryLock(100, TimeUnit.MILLISECONDS))
                .as("heartbeat while held")
                .isTrue();
        mine.unlock();
        Thread.sleep(400); // paused past the ttl
        long between = CompletableFuture.supplyAsync(() -> {
                    assertThat(theirs.tryLock()).isTrue();
                    long t = theirs.token();
                    theirs.unlock();
                    return t;
                })
                .get();
        assertThat(mine.tryLock()).as("the heartbeat sees the loss").isFalse();
        assertThat(mine.tryLock()).as("the next try takes it anew").isTrue();
        assertThat(mine.token()).isGreaterThan(between).isGreaterThan(first);
        mine.unlock();
        assertThat(CompletableFuture.supplyAsync(theirs::tryLock).get())
                .as("the unlock matching the new hold released it")
                .isTrue();
        assertThatThrownBy(mine::unlock).as("the lost outer hold").isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void aReentrantTryLockRenewsTheHold() throws Exception {
        FencedLock lock = registry(Duration.ofMillis(800)).obtain(key);
        FencedLock other = newRegistry().obtain(key);
        lock.lock();
        for (int i = 0; i < 3; i++) {
            Thread.sleep(400); // work between two heartbeats, half the ttl
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
        assertThat(CompletableFuture.supplyAsync(other::tryLock).get())
                .as("1.2 s after a 0.8 s lock")
                .isFalse();
        lock.unlock();
    }

    @Test
    void renewLockExtendsTheHoldAndFailsOnceLost() throws Exception {
        FencedLockRegistry registry = registry(Duration.ofMillis(500));
        FencedLock lock = registry.obtain(key);
        lock.lock();
        long token = lock.token();
        registry.renewLock(key, Duration.ofSeconds(5));
        Thread.sleep(700); // past the first ttl
        assertThat(lock.token()).isEqualTo(token);
        assertThat(CompletableFuture.supplyAsync(() -> newRegistry().obtain(key).tryLock())
                        .get())
                .isFalse();
        registry.renewLock(key, Duration.ofMillis(100));
        Thread.sleep(300); // past the short renewal
        assertThatThrownBy(() -> registry.renewLock(key)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void aTtlPerLockCall() throws Exception {
        FencedLockRegistry registry = newRegistry();
        FencedLock lock = registry.obtain(key);
        lock.lock(Duration.ofMillis(200));
        Thread.sleep(400); // past the lock's own ttl, well within the registry's 10 s
        assertThatThrownBy(lock::token).isInstanceOf(IllegalStateException.class);
        assertThat(CompletableFuture.supplyAsync(() -> newRegistry().obtain(key).tryLock())
                        .get())
                .isTrue();
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class);
        assertThat(lock.tryLock(Duration.ofMillis(50), Duration.ofSeconds(5)))
                .as("held by the other")
                .isFalse();
    }

    @Test
    void theLockNeverJoinsTheCallersTransaction() throws Exception {
        DataSource pool = newPool();
        FencedLockRegistry registry = FencedLockRegistry.jdbc(pool, config(), Duration.ofSeconds(10));
        FencedLock lock = registry.obtain(key);
        new TransactionTemplate(new DataSourceTransactionManager(pool)).executeWithoutResult(status -> {
            lock.lock();
            status.setRollbackOnly();
        });
        assertThat(CompletableFuture.supplyAsync(() -> newRegistry().obtain(key).tryLock())
                        .get())
                .as("the hold outlived the rolled-back transaction")
                .isFalse();
        lock.unlock();
        assertThatThrownBy(
                        () -> FencedLockRegistry.jdbc(new TransactionAwareDataSourceProxy(pool), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("TransactionAwareDataSourceProxy");
    }

    @Test
    void toStringNamesTheStore() {
        assertThat(newRegistry().toString()).contains("jdbc").contains("leases");
    }
}
