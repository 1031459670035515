package dev.leasehold.store.internal.mariadb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.Database;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.internal.BatchKey;
import dev.leasehold.store.internal.BatchRow;
import dev.leasehold.store.internal.Tables;
import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The MariaDB dialect's SQL for claiming and finishing many batches at once (issue 16's {@code claimUpTo} and
 * {@code finishAll}, written on a branch that predates them: here the dialect is called directly, each call in a
 * transaction of its own as the store runs it).
 */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbManyClaimsTest {

    private final MariaDbDialect dialect = new MariaDbDialect(new Tables(StoreConfig.DEFAULT_PREFIX), Database.MARIADB);
    private DataSource dataSource;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("many_claims");
        FencedSchema.install(dataSource);
    }

    @Test
    void twoClaimersTakeDisjointBatchesOldestFirstAndAFinishSkipsTheStaleClaim() throws SQLException {
        BatchClaims batches = new BatchClaims(dataSource);
        for (int i = 0; i < 5; i++) {
            batches.enqueue("b" + i, "p" + i);
        }
        try (Connection first = transaction();
                Connection second = transaction()) {
            List<BatchRow> mine = dialect.claimBatches(first, "w1", 60_000, 3, 3);
            // the first claimer's rows are still locked: the second skips them, never waits
            List<BatchRow> theirs = dialect.claimBatches(second, "w2", 60_000, 3, 10);
            first.commit();
            second.commit();
            assertThat(mine).extracting(BatchRow::batchId).containsExactly("b0", "b1", "b2");
            assertThat(mine).extracting(BatchRow::fence).containsOnly(1L);
            assertThat(theirs).extracting(BatchRow::batchId).containsExactly("b3", "b4");

            List<BatchKey> toFinish = new ArrayList<>();
            mine.forEach(claim -> toFinish.add(new BatchKey(claim.batchId(), claim.fence())));
            BatchRow stale = theirs.get(0);
            toFinish.add(new BatchKey(stale.batchId(), stale.fence() - 1));
            assertThat(dialect.finishBatches(first, toFinish, "ok")).containsExactlyInAnyOrder("b0", "b1", "b2");
            first.commit();
        }
        assertThat(batches.state("b1").orElseThrow().status()).isEqualTo("done");
        assertThat(batches.state("b3").orElseThrow().status()).isEqualTo("processing");
        assertThat(batches.claimNext("w3", Duration.ofMinutes(1))).isEmpty();
    }

    private Connection transaction() throws SQLException {
        Connection c = dataSource.getConnection();
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        c.setAutoCommit(false);
        return c;
    }
}
