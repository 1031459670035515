package dev.leasehold.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.ChildLines;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 44: a replica frozen ({@code kill -STOP}) past {@code lockAtMostFor} while it holds a {@link
 * JdbcFencedLockProvider} lock, whose write after it resumes is refused by the gate. Timeline (one embedded PostgreSQL
 * 17, the child in a JVM of its own):
 * <ol>
 *   <li>the child takes the lock ({@code lockAtMostFor} 2 s), advances the gate with its token t1;</li>
 *   <li>it is stopped; its pending write ("write" on its stdin) waits while it is frozen;</li>
 *   <li>the parent's lock attempts fail while the child's lock is valid, then succeed once it expired: token t2 &gt;
 *       t1; the parent advances the gate and writes its batch row;</li>
 *   <li>the child resumes ({@code kill -CONT}) and writes with t1: {@code StaleTokenException}, reported on its stdout;
 *       the batch table holds the parent's row only.</li>
 * </ol>
 */
@Timeout(120)
class PausedPastLockAtMostForTest {

    private static final String DB = "shedlock_paused";
    private static final String LOCK = "nightly-batch";
    private static final String RESOURCE = "batch";
    private static final long AT_MOST_MS = 2_000;

    private DataSource db;
    private ChildLines child;

    @BeforeEach
    void database() throws SQLException {
        assumeTrue(ChildJvm.signalsSupported(), "kill -STOP / -CONT not available here");
        db = TestDatabases.postgres(DB);
        FencedSchema.install(db);
        TestDatabases.execute(db, "CREATE TABLE batch (writer VARCHAR(20) NOT NULL, token BIGINT NOT NULL)");
    }

    @AfterEach
    void stopChild() {
        if (child != null) {
            child.close();
        }
    }

    @Test
    void theFrozenReplicasLateWriteIsRefusedAndNothingStaleIsKept() throws Exception {
        start();
        String locked = next();
        assertThat(locked).startsWith("LOCKED ");
        long childToken = Long.parseLong(locked.substring("LOCKED ".length()));

        ChildJvm.signal("-STOP", child.process());
        child.tell("write"); // the child's write is pending: it runs the moment the child resumes

        JdbcFencedLockProvider provider = new JdbcFencedLockProvider(db);
        LockConfiguration config = new LockConfiguration(Instant.now(), LOCK, Duration.ofSeconds(30), Duration.ZERO);
        assertThat(provider.lock(config))
                .as("the frozen child's lock is still valid right after it was stopped")
                .isEmpty();
        Optional<SimpleLock> mine = lockOnceExpired(provider, config);
        assertThat(mine).as("the lock, once the child's lockAtMostFor ran out").isPresent();
        long token = ((FencedSimpleLock) mine.get()).token();
        assertThat(token).isGreaterThan(childToken);
        FenceGate gate = new FenceGate(db);
        gate.advance(RESOURCE, token, "parent");
        gate.write(RESOURCE, token, tx -> insert(tx, "parent", token));

        ChildJvm.signal("-CONT", child.process());
        assertThat(next()).as("the child's late write").isEqualTo("STALE " + childToken);
        mine.get().unlock();
        assertThat(batch()).containsExactly("parent " + token);
    }

    /** Tries every 200 ms for at most 20 s: the child's 2 s run out on the database's clock. */
    private Optional<SimpleLock> lockOnceExpired(JdbcFencedLockProvider provider, LockConfiguration config)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            Optional<SimpleLock> lock = provider.lock(config);
            if (lock.isPresent()) {
                return lock;
            }
            Thread.sleep(200); // polling the expiry, a duration on the database's clock
        }
        return Optional.empty();
    }

    private static void insert(Connection tx, String writer, long token) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO batch (writer, token) VALUES (?, ?)")) {
            s.setString(1, writer);
            s.setLong(2, token);
            s.executeUpdate();
        }
    }

    private List<String> batch() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT writer, token FROM batch ORDER BY token");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getString(1) + " " + rs.getLong(2));
            }
        }
        return rows;
    }

    private void start() throws IOException {
        child = ChildLines.start(
                "shedlock-paused",
                PausedJobChild.class,
                List.of(TestDatabases.postgresUrl(DB), LOCK, RESOURCE, String.valueOf(AT_MOST_MS)));
    }

    /** The next line, waiting at most 30 s (a JVM start on a loaded machine). */
    private String next() throws InterruptedException {
        return child.next(Duration.ofSeconds(30));
    }
}
