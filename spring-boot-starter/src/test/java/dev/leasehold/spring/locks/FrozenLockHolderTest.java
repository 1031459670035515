package dev.leasehold.spring.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.ChildLines;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 45's seeds incident with a real pause: a worker in a JVM of its own holds a {@link FencedLockRegistry} lock,
 * is frozen with {@code kill -STOP} past its ttl (JDBC) or its session (ZooKeeper), another worker takes the lock with
 * a higher token and pushes the batch; the frozen worker resumes ({@code kill -CONT}) and pushes with its old token:
 * the gate refuses it and the batch holds one row. One embedded PostgreSQL 17 and one ZooKeeper server for both.
 */
@Timeout(120)
class FrozenLockHolderTest {

    private static final long TTL_MS = 2_000;

    private static EmbeddedPostgres postgres;
    private static TestingServer zookeeper;

    private String key;
    private ChildLines child;

    @BeforeAll
    static void servers() throws Exception {
        postgres = PatientPostgres.builder().start();
        FencedSchema.install(postgres.getPostgresDatabase());
        execute("CREATE TABLE batch (writer VARCHAR(20) NOT NULL, token BIGINT NOT NULL)");
        zookeeper = new TestingServer();
    }

    @AfterAll
    static void stopServers() throws Exception {
        zookeeper.close();
        postgres.close();
    }

    @BeforeEach
    void fresh(TestInfo test) throws SQLException {
        assumeTrue(ChildJvm.signalsSupported(), "kill -STOP / -CONT not available here");
        key = test.getTestMethod().orElseThrow().getName();
        execute("DELETE FROM batch");
    }

    @AfterEach
    void stopChild() {
        if (child != null) {
            child.close();
        }
    }

    @Test
    void jdbcTheFrozenWorkersLatePushIsRefusedAndItsUnlockSaysTheLockWasLost() throws Exception {
        long childToken = startChild("jdbc", "-");
        long token = takeOverAndPush(FencedLockRegistry.jdbc(db(), Duration.ofSeconds(30)), childToken);
        assertThat(child.next(Duration.ofSeconds(30))).as("the child's unlock").isEqualTo("LOST");
        assertThat(batch()).containsExactly("parent " + token);
    }

    @Test
    void zookeeperTheFrozenWorkersLatePushIsRefused() throws Exception {
        long childToken = startChild("zookeeper", zookeeper.getConnectString());
        try (CuratorFramework client =
                CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), 10_000, 2_000, new RetryOneTime(100))) {
            client.start();
            long token = takeOverAndPush(FencedLockRegistry.zookeeper(client, "/locks"), childToken);
            assertThat(batch()).containsExactly("parent " + token);
        }
    }

    /** The child locks and advances the gate with its token, which is returned. */
    private long startChild(String backend, String connectString) throws Exception {
        child = ChildLines.start(
                "frozen-lock-holder",
                FrozenLockHolderChild.class,
                List.of(
                        backend,
                        postgres.getJdbcUrl("postgres", "postgres"),
                        connectString,
                        key,
                        String.valueOf(TTL_MS)));
        String locked = child.next(Duration.ofSeconds(30));
        assertThat(locked).startsWith("LOCKED ");
        return Long.parseLong(locked.substring("LOCKED ".length()));
    }

    /**
     * Freezes the child with its push pending, takes the lock once the child's ttl or session ran out, advances the
     * gate and pushes; then resumes the child, whose push must be refused.
     */
    private long takeOverAndPush(FencedLockRegistry registry, long childToken) throws Exception {
        ChildJvm.signal("-STOP", child.process());
        child.tell("write"); // pending: the frozen worker pushes the moment it resumes
        FencedLock lock = registry.obtain(key);
        assertThat(lock.tryLock(60, TimeUnit.SECONDS))
                .as("the lock, once the frozen child's hold ran out")
                .isTrue();
        long token = lock.token();
        assertThat(token).isGreaterThan(childToken);
        FenceGate gate = new FenceGate(db());
        gate.advance(key, token, "parent");
        gate.write(key, token, tx -> insert(tx, "parent", token));
        ChildJvm.signal("-CONT", child.process());
        assertThat(child.next(Duration.ofSeconds(30)))
                .as("the resumed child's push")
                .isEqualTo("STALE " + childToken);
        lock.unlock();
        return token;
    }

    private static DataSource db() {
        return postgres.getPostgresDatabase();
    }

    private static void insert(Connection tx, String writer, long token) throws SQLException {
        try (PreparedStatement s = tx.prepareStatement("INSERT INTO batch (writer, token) VALUES (?, ?)")) {
            s.setString(1, writer);
            s.setLong(2, token);
            s.executeUpdate();
        }
    }

    private static List<String> batch() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = db().getConnection();
                PreparedStatement s = c.prepareStatement("SELECT writer, token FROM batch ORDER BY token");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getString(1) + " " + rs.getLong(2));
            }
        }
        return rows;
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = db().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
