package dev.leasehold.shedlock;

import dev.leasehold.store.FencedSchema;
import java.time.Duration;
import java.time.Instant;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.h2.jdbcx.JdbcDataSource;

/** Run by {@code JdbcLockRowTest} in a class loader without Curator: a locked task that reads its token. */
public final class WithoutCurator {

    private WithoutCurator() {}

    /** @return the token the task saw */
    public static long lockAndUnlock(String h2Url) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(h2Url);
        FencedSchema.install(ds);
        long[] seen = new long[1];
        new DefaultLockingTaskExecutor(new JdbcFencedLockProvider(ds))
                .executeWithLock(
                        (Runnable) () -> seen[0] = FencedLocks.currentToken(),
                        new LockConfiguration(Instant.now(), "without-curator", Duration.ofMinutes(1), Duration.ZERO));
        return seen[0];
    }
}
