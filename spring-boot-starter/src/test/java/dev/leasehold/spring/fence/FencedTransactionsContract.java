package dev.leasehold.spring.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.fencedapp.Billing;
import dev.leasehold.fencedapp.FencedApplication;
import dev.leasehold.fencedapp.Grants;
import dev.leasehold.fencedapp.JdbcBilling;
import dev.leasehold.fencedapp.LazyApplication;
import dev.leasehold.spring.LeaseholdFence;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code @Fenced} and {@code LeaseholdFence} in the transactions a Spring Boot service has, on one database: a JPA
 * application ({@link FencedApplication}: {@code JpaTransactionManager}, Spring Data JPA, JdbcTemplate and jOOQ on
 * HikariCP) and a JDBC one ({@link LazyApplication}: {@code JdbcTransactionManager} over a
 * {@code LazyConnectionDataSourceProxy}), both leading their own role on the database lease. Two contexts per database,
 * shared by every test.
 *
 * <p>"Superseded" means: a new leader advanced the resource's mark past this instance's token (with the gate, outside
 * any transaction), while this instance still believes it leads; every test restores the mark afterwards (an
 * operator's re-base). Each of these tests fails if the check were skipped: the write would commit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class FencedTransactionsContract {

    private ConfigurableApplicationContext jpa;
    private ConfigurableApplicationContext lazy;
    private long jpaToken;
    private long lazyToken;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    /** The JDBC URL (with user and password in it, or {@link #username()}). */
    abstract String url();

    String username() {
        return "";
    }

    String password() {
        return "";
    }

    /** The state of a pooled connection as lent, for the comparison after many fenced transactions. */
    abstract String sessionState(Connection connection) throws SQLException;

    /** Whether DDL commits the open transaction by itself (H2, MariaDB). */
    abstract boolean ddlCommits();

    /** Whether a rollback to a savepoint releases the row locks taken after it (PostgreSQL). */
    abstract boolean savepointRollbackDropsLocks();

    /** Whether a {@code readOnly = true} transaction reports itself read-only on its connection. */
    abstract boolean readOnlyIsVisible();

    @BeforeAll
    void startApplications() throws Exception {
        jpa = start(FencedApplication.class, "jpa", "billing");
        jpaToken = jpa.getBean(Grants.class).awaitGrant();
        lazy = start(LazyApplication.class, "lazy", "billing-lazy");
        lazyToken = lazy.getBean(Grants.class).awaitGrant();
    }

    private ConfigurableApplicationContext start(Class<?> application, String id, String role) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + url(),
                "spring.datasource.hikari.maximum-pool-size=4",
                "spring.jpa.hibernate.ddl-auto=create-drop",
                "spring.jpa.open-in-view=false",
                "fenced.url=" + url(),
                "fenced.role=" + role,
                "leasehold.election.backend=jdbc",
                "leasehold.election.participant-id=" + id + "-"
                        + ProcessHandle.current().pid(),
                "leasehold.store.table-prefix=sf_"));
        if (!username().isEmpty()) {
            properties.addAll(List.of(
                    "spring.datasource.username=" + username(),
                    "spring.datasource.password=" + password(),
                    "fenced.username=" + username(),
                    "fenced.password=" + password()));
        }
        return new SpringApplicationBuilder(application)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run();
    }

    @AfterAll
    void stopApplications() {
        threads.shutdownNow();
        if (lazy != null) {
            lazy.close();
        }
        if (jpa != null) {
            jpa.close();
        }
        afterApplications();
    }

    /** Runs once both applications closed: stop the database here. */
    void afterApplications() {}

    // ---- the current leader's writes pass

    @Test
    void theLeadersWritesCommitThroughJpaJdbcTemplateAndJooqWithTheGrantsToken() {
        Billing billing = jpa.getBean(Billing.class);
        billing.save("c-leader");
        billing.insertWithJdbcTemplate("c-leader");
        billing.insertWithJooq("c-leader");
        assertThat(count("c-leader")).isEqualTo(3);
        assertThat(billing.markPaid("c-leader")).isEqualTo(3);
        FenceGate gate = jpa.getBean(FenceGate.class);
        for (String resource : List.of(Billing.JPA, Billing.BULK, Billing.JDBC, Billing.JOOQ)) {
            assertThat(gate.highestToken(resource)).as(resource).hasValue(jpaToken);
        }
    }

    // ---- a superseded leader writes nothing

    @Test
    void aSupersededLeadersJpaSaveFlushedAtCommitWritesNothing() {
        superseded(Billing.JPA, () -> assertThatThrownBy(
                        () -> jpa.getBean(Billing.class).save("c-jpa-stale"))
                .isInstanceOf(StaleTokenException.class));
        assertThat(count("c-jpa-stale")).isZero();
    }

    @Test
    void aSupersededLeadersJpqlBulkUpdateChangesNothing() {
        jdbc().update(Billing.INSERT, "c-bulk-stale");
        superseded(Billing.BULK, () -> assertThatThrownBy(
                        () -> jpa.getBean(Billing.class).markPaid("c-bulk-stale"))
                .isInstanceOf(StaleTokenException.class));
        assertThat(jdbc().queryForObject(
                                "select count(*) from sf_invoice where customer = ? and paid = true",
                                Long.class,
                                "c-bulk-stale"))
                .isZero();
    }

    @Test
    void aSupersededLeadersJdbcTemplateUpdateWritesNothing() {
        superseded(Billing.JDBC, () -> assertThatThrownBy(
                        () -> jpa.getBean(Billing.class).insertWithJdbcTemplate("c-jdbc-stale"))
                .isInstanceOf(StaleTokenException.class));
        assertThat(count("c-jdbc-stale")).isZero();
    }

    @Test
    void aSupersededLeadersJooqInsertWritesNothing() {
        superseded(Billing.JOOQ, () -> assertThatThrownBy(
                        () -> jpa.getBean(Billing.class).insertWithJooq("c-jooq-stale"))
                .isInstanceOf(StaleTokenException.class));
        assertThat(count("c-jooq-stale")).isZero();
    }

    @Test
    void aCheckPlacedAfterTheWritesRollsThemBackToo() {
        superseded(Billing.JPA, () -> assertThatThrownBy(
                        () -> jpa.getBean(Billing.class).writeThenCheck(Billing.JPA, "c-after"))
                .isInstanceOf(StaleTokenException.class));
        assertThat(count("c-after")).isZero();
    }

    @Test
    void aStaleTokenExceptionCaughtInsideTheMethodStillRollsBack() {
        superseded(Billing.JDBC, () -> assertThat(
                        jpa.getBean(Billing.class).writeAndSwallowStale(Billing.JDBC, "c-swallowed"))
                .as("the method caught the refusal")
                .isTrue());
        assertThat(count("c-swallowed")).isZero();
    }

    @Test
    void aRequiresNewTransactionIsFencedOnItsOwnResourceAndTheOuterOneOnItsOwn() {
        superseded(Billing.INNER, () -> assertThat(jpa.getBean(Billing.class).outerWithInner("c-new"))
                .as("the inner transaction was refused")
                .isTrue());
        assertThat(count("c-new-inner"))
                .as("the REQUIRES_NEW transaction's write")
                .isZero();
        assertThat(count("c-new-outer"))
                .as("the outer transaction's write, fenced on its own resource")
                .isOne();
    }

    @Test
    void theJdbcTransactionManagerOverALazyProxyIsFencedForJdbcTemplateAndJooq() {
        JdbcBilling billing = lazy.getBean(JdbcBilling.class);
        billing.insertWithJdbcTemplate("c-lazy");
        billing.insertWithJooq("c-lazy");
        assertThat(count("c-lazy")).isEqualTo(2);
        supersededLazy(JdbcBilling.JDBC, () -> assertThatThrownBy(() -> billing.insertWithJdbcTemplate("c-lazy-stale"))
                .isInstanceOf(StaleTokenException.class));
        supersededLazy(JdbcBilling.JOOQ, () -> assertThatThrownBy(() -> billing.insertWithJooq("c-lazy-stale"))
                .isInstanceOf(StaleTokenException.class));
        assertThat(count("c-lazy-stale")).isZero();
    }

    // ---- the old leader paused after its check

    /**
     * Timeline: the old leader's transaction passes its check and saves, then pauses (a latch) holding the mark; the
     * new leader advances: its advance waits, and returns only once the old transaction committed (its invoice is
     * visible when the advance returns); the old leader's next transaction is refused.
     */
    @Test
    void anOldLeaderPausedAfterItsCheckHoldsTheNewLeadersAdvanceUntilItsTransactionEnds() throws Exception {
        Billing billing = jpa.getBean(Billing.class);
        FenceGate gate = jpa.getBean(FenceGate.class);
        CountDownLatch checked = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        try {
            Future<?> old = threads.submit(() -> {
                billing.saveAndPause("c-paused", checked, resume);
                return null;
            });
            assertThat(checked.await(30, TimeUnit.SECONDS)).isTrue();
            AtomicLong seenByAdvance = new AtomicLong(-1);
            CompletableFuture<Void> advance = CompletableFuture.runAsync(
                    () -> {
                        gate.advance(Billing.PAUSED, jpaToken + 1);
                        seenByAdvance.set(count("c-paused"));
                    },
                    threads);
            // a bounded look, not a synchronisation: the advance must still be waiting for the old transaction
            assertThatThrownBy(() -> advance.get(500, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            resume.countDown();
            old.get(30, TimeUnit.SECONDS);
            advance.get(30, TimeUnit.SECONDS);
            assertThat(seenByAdvance.get())
                    .as("the old transaction had committed when the advance returned")
                    .isOne();
            assertThatThrownBy(
                            () -> billing.saveAndPause("c-paused-next", new CountDownLatch(1), new CountDownLatch(0)))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(count("c-paused-next")).isZero();
        } finally {
            resume.countDown();
            restore(gate, Billing.PAUSED, jpaToken);
        }
    }

    // ---- refusals

    @Test
    void aFencedMethodWithoutATransactionIsRefusedNamingTransactional() {
        assertThatThrownBy(() -> jpa.getBean(Billing.class).saveWithoutTransaction("c-none"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Transactional");
        assertThatThrownBy(() -> jpa.getBean(LeaseholdFence.class).check(Billing.JPA))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Transactional");
        assertThat(count("c-none")).isZero();
    }

    @Test
    void aReadOnlyTransactionGetsAClearAnswer() {
        Billing billing = jpa.getBean(Billing.class);
        if (readOnlyIsVisible()) {
            assertThatThrownBy(billing::countReadOnly)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("read-only");
        } else {
            // the database ignores read-only: the check runs as in any transaction, and a superseded token is refused
            billing.countReadOnly();
            superseded(Billing.JPA, () -> assertThatThrownBy(billing::countReadOnly)
                    .isInstanceOf(StaleTokenException.class));
        }
    }

    /**
     * The newcomer's variant of issue 43: {@code @Transactional} with {@code gate.write} inside. Its check would commit
     * on the gate's own connection before the JPA transaction commits; the starter's gate refuses it before sending
     * anything, naming the fix.
     */
    @Test
    void theGatesOwnTransactionInsideASpringTransactionIsRefusedBeforeAnythingIsSent() {
        FenceGate gate = jpa.getBean(FenceGate.class);
        String resource = "sf-trap-" + Long.toHexString(System.nanoTime()); // new on a database that outlives the run
        assertThatThrownBy(() -> jpa.getBean(Billing.class).gateWriteInside(resource, jpaToken, "c-trap"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@Fenced")
                .hasMessageContaining("LeaseholdFence.check")
                .hasMessageContaining("leasehold.store.separate-transactions-allowed");
        assertThat(gate.highestToken(resource)).as("the gate sent nothing").isEmpty();
        assertThat(count("c-trap")).isZero();
        gate.write(resource, jpaToken, tx -> {}); // outside a Spring transaction the gate is unchanged
        assertThat(gate.highestToken(resource)).hasValue(jpaToken);
    }

    // ---- the backstop

    /**
     * A check inside a {@code NESTED} transaction that is rolled back to its savepoint: on PostgreSQL that releases the
     * check's lock, a new leader advances at once, and the outer transaction's write that follows must not commit.
     */
    @Test
    void aCheckRolledBackToItsSavepointDoesNotLeaveTheOuterWritesUnfenced() {
        Assumptions.assumeTrue(savepointRollbackDropsLocks(), "a rollback to a savepoint keeps the locks here");
        String resource = "sf-nested";
        FenceGate gate = lazy.getBean(FenceGate.class);
        LeaseholdFence fence = lazy.getBean(LeaseholdFence.class);
        TransactionTemplate outer = new TransactionTemplate(lazy.getBean(PlatformTransactionManager.class));
        TransactionTemplate nested = new TransactionTemplate(lazy.getBean(PlatformTransactionManager.class));
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        try {
            assertThatThrownBy(() -> outer.executeWithoutResult(status -> {
                        try {
                            nested.executeWithoutResult(inner -> {
                                fence.check(resource);
                                throw new IllegalArgumentException("rolled back to the savepoint");
                            });
                        } catch (IllegalArgumentException expected) {
                            // the outer transaction goes on
                        }
                        join(CompletableFuture.runAsync(() -> gate.advance(resource, lazyToken + 1), threads));
                        lazyJdbc().update(Billing.INSERT, "c-nested");
                    }))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(count("c-nested")).isZero();
        } finally {
            restore(gate, resource, lazyToken);
        }
    }

    /**
     * DDL commits the open transaction by itself on H2 and MariaDB, releasing the check's lock: a new leader advances,
     * and the writes after the DDL must not commit.
     */
    @Test
    void aStatementThatCommitsImplicitlyIsCaughtAtCommit() {
        Assumptions.assumeTrue(ddlCommits(), "DDL is transactional here");
        String resource = "sf-ddl";
        FenceGate gate = lazy.getBean(FenceGate.class);
        LeaseholdFence fence = lazy.getBean(LeaseholdFence.class);
        TransactionTemplate transaction = new TransactionTemplate(lazy.getBean(PlatformTransactionManager.class));
        try {
            assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
                        fence.check(resource);
                        lazyJdbc().update(Billing.INSERT, "c-ddl-before");
                        lazyJdbc().execute("create table sf_ddl_probe (i int)"); // commits the transaction
                        join(CompletableFuture.runAsync(() -> gate.advance(resource, lazyToken + 1), threads));
                        lazyJdbc().update(Billing.INSERT, "c-ddl-after");
                    }))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(count("c-ddl-after")).isZero();
            assertThat(count("c-ddl-before"))
                    .as("committed by the DDL, while the check's lock was held")
                    .isOne();
        } finally {
            lazyJdbc().execute("drop table if exists sf_ddl_probe");
            restore(gate, resource, lazyToken);
        }
    }

    // ---- the pool

    @Test
    void thePoolsConnectionsAreAsTheyWereLentAfter1000FencedTransactions() throws Exception {
        HikariDataSource pool = jpa.getBean(DataSource.class).unwrap(HikariDataSource.class);
        List<String> before = states(pool);
        Billing billing = jpa.getBean(Billing.class);
        for (int i = 0; i < 1_000; i++) {
            billing.insertFenced("c-many");
        }
        assertThat(count("c-many")).isEqualTo(1_000);
        assertThat(states(pool)).isEqualTo(before);
    }

    /** Every connection of the pool (all borrowed at once), its state as lent, sorted. */
    private List<String> states(HikariDataSource pool) throws SQLException {
        List<Connection> all = new ArrayList<>();
        List<String> states = new ArrayList<>();
        try {
            for (int i = 0; i < pool.getMaximumPoolSize(); i++) {
                Connection connection = pool.getConnection();
                all.add(connection);
                states.add("autoCommit=" + connection.getAutoCommit() + " isolation="
                        + connection.getTransactionIsolation() + " readOnly=" + connection.isReadOnly() + " "
                        + sessionState(connection));
            }
        } finally {
            for (Connection connection : all) {
                connection.close();
            }
        }
        states.sort(null);
        return states;
    }

    // ---- helpers

    private void superseded(String resource, Runnable refused) {
        supersede(jpa.getBean(FenceGate.class), resource, jpaToken, refused);
    }

    private void supersededLazy(String resource, Runnable refused) {
        supersede(lazy.getBean(FenceGate.class), resource, lazyToken, refused);
    }

    /** A new leader advances {@code resource} past {@code token}; {@code refused} runs; the mark is put back. */
    private static void supersede(FenceGate gate, String resource, long token, Runnable refused) {
        gate.advance(resource, token + 1);
        try {
            refused.run();
        } finally {
            restore(gate, resource, token);
        }
    }

    private static void restore(FenceGate gate, String resource, long token) {
        if (gate.highestToken(resource).orElse(0) != token) {
            gate.rebase(resource, token, "test", "the test's leader leads again");
        }
    }

    private static void join(CompletableFuture<Void> future) {
        try {
            future.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("the new leader's advance failed", e);
        }
    }

    private JdbcTemplate jdbc() {
        return jpa.getBean(JdbcTemplate.class);
    }

    private JdbcTemplate lazyJdbc() {
        return lazy.getBean(JdbcTemplate.class);
    }

    long count(String customer) {
        return jdbc().queryForObject("select count(*) from sf_invoice where customer = ?", Long.class, customer);
    }
}
