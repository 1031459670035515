package dev.leasehold.spring.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FencedSchema;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The calling thread's held locks, by key, for a fence check that is handed no token (H2). */
class HeldLocksTest {

    private final FencedLockRegistry registry;

    HeldLocksTest() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:held-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        FencedSchema.install(h2);
        registry = FencedLockRegistry.jdbc(h2, Duration.ofSeconds(10));
    }

    @Test
    void theInnermostHoldOfTheKeyGivesTheToken() throws Exception {
        FencedLock outer = registry.obtain("exports");
        FencedLock inner = registry.obtain("billing");
        assertThat(HeldLocks.tokenOf("exports")).isEmpty();
        outer.lock();
        inner.lock();
        outer.lock(); // nested: the same hold
        assertThat(HeldLocks.tokenOf("exports")).isEqualTo(OptionalLong.of(outer.token()));
        assertThat(HeldLocks.tokenOf("billing")).isEqualTo(OptionalLong.of(inner.token()));
        assertThat(HeldLocks.tokenOf("other")).isEmpty();
        assertThat(CompletableFuture.supplyAsync(() -> HeldLocks.tokenOf("exports"))
                        .get())
                .as("another thread holds nothing")
                .isEmpty();
        outer.unlock();
        inner.unlock();
        assertThat(HeldLocks.tokenOf("billing")).isEmpty();
        assertThat(HeldLocks.tokenOf("exports")).isPresent();
        outer.unlock();
        assertThat(HeldLocks.tokenOf("exports")).isEmpty();
    }

    @Test
    void aLostHoldIsNeverOfferedAsAToken() throws Exception {
        FencedLock lock = registry.obtain("exports");
        lock.lock(Duration.ofMillis(100));
        Thread.sleep(300); // the holder pauses past its ttl
        assertThatThrownBy(() -> HeldLocks.tokenOf("exports")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(java.util.ConcurrentModificationException.class);
        assertThat(HeldLocks.tokenOf("exports")).isEmpty();
    }
}
