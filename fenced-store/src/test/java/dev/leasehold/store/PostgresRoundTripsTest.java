package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.EmbeddedPostgresSupport;
import dev.leasehold.store.testing.RoundTrips;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 on PostgreSQL: what a fenced write of a token the gate saw pass sends. The transaction's settings travel
 * with the work's first statement and the shared check with the COMMIT: a work of one statement is two round trips,
 * as a plain transaction is. A function or trigger cannot end the transaction here, so a work of plain DML needs no
 * mark of the gate's transaction and no check of it before the commit. Work that could end the transaction is marked
 * before it and verified before the commit; a failed statement the work swallows is reported, with nothing kept.
 */
class PostgresRoundTripsTest {

    private static final String INSERT = "INSERT INTO round_trip_notes (note) VALUES (?)";
    private static final String SETTINGS =
            "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = 5000;"
                    + " SET LOCAL idle_in_transaction_session_timeout = 30000; ";
    private static final String CHECK_AND_COMMIT = "WITH passed AS (SELECT 1 FROM leasehold_fence WHERE resource = ?"
            + " AND token = ? FOR SHARE) SELECT 1 / COUNT(*) FROM passed; COMMIT";

    private final DataSource database = EmbeddedPostgresSupport.shared().getPostgresDatabase();
    private final RoundTrips trips = new RoundTrips(database);
    private final FenceGate gate = new FenceGate(trips);

    @BeforeEach
    void schema() throws SQLException {
        FencedSchema.install(database);
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS round_trip_notes (note VARCHAR(100) NOT NULL)");
            s.execute("DELETE FROM round_trip_notes");
            s.execute("DELETE FROM leasehold_fence WHERE resource = 'trips'");
        }
        gate.advance("trips", 7);
        gate.write("trips", 7, tx -> insert(tx, "first")); // the token is now one the gate has seen pass
        trips.clear();
    }

    @Test
    void aWorkOfPlainDmlIsTheSettingsWithTheWorkThenTheCheckWithTheCommit() throws SQLException {
        gate.write("trips", 7, tx -> insert(tx, "second"));

        assertThat(trips.calls()).containsExactly(SETTINGS + INSERT, CHECK_AND_COMMIT);
        assertThat(notes()).containsExactly("first", "second");
    }

    @Test
    void workThatCouldEndTheTransactionIsMarkedBeforeItAndVerifiedBeforeTheCommit() throws SQLException {
        gate.write("trips", 7, tx -> {
            insert(tx, "second");
            try (Statement s = tx.createStatement()) {
                s.execute("SET LOCAL statement_timeout = 5000");
            }
            insert(tx, "third");
        });

        assertThat(trips.calls())
                .containsExactly(
                        SETTINGS + INSERT,
                        "SELECT txid_current()",
                        "SET LOCAL statement_timeout = 5000",
                        INSERT,
                        "SELECT txid_current()",
                        CHECK_AND_COMMIT);
        assertThat(notes()).containsExactly("first", "second", "third");
    }

    /** A read is plain DML too: its result set leads back to the guarded statement, not past it. */
    @Test
    void aWorkThatReadsThenWritesIsNotMarkedEither() throws SQLException {
        gate.write("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement("SELECT COUNT(*) FROM round_trip_notes");
                    ResultSet rs = p.executeQuery()) {
                rs.next();
                assertThat(rs.getStatement()).isSameAs(p);
                insert(tx, "after " + rs.getLong(1));
            }
        });

        assertThat(trips.calls())
                .containsExactly(SETTINGS + "SELECT COUNT(*) FROM round_trip_notes", INSERT, CHECK_AND_COMMIT);
        assertThat(notes()).containsExactly("first", "after 1");
    }

    /** A value that leads to the driver's own result sets (an Array's getResultSet()) is handed out marked. */
    @Test
    void anArrayFromAResultSetMarksTheTransactionBeforeTheWorkGetsIt() throws SQLException {
        gate.write("trips", 7, tx -> {
            try (Statement s = tx.createStatement();
                    ResultSet rs = s.executeQuery("SELECT ARRAY[1, 2]")) {
                rs.next();
                assertThat(rs.getArray(1).getArray()).isEqualTo(new Integer[] {1, 2});
            }
            insert(tx, "second");
        });

        assertThat(trips.calls())
                .containsExactly(
                        SETTINGS + "SELECT ARRAY[1, 2]",
                        "SELECT txid_current()",
                        INSERT,
                        "SELECT txid_current()",
                        CHECK_AND_COMMIT);
        assertThat(notes()).containsExactly("first", "second");
    }

    /**
     * The work runs under the store's settings whatever the session's are, though they travel with its first
     * statement: READ COMMITTED on a session at SERIALIZABLE, the store's lock timeout and idle bound.
     */
    @Test
    void theFirstStatementRunsUnderTheSettingsItCarries() throws SQLException {
        FenceGate serializable = serializableGate();
        serializable.write("trips", 7, tx -> insert(tx, "seen")); // now seen by this gate too
        List<String> settings = serializable.call("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement(
                            "SELECT current_setting('transaction_isolation'),"
                                    + " current_setting('lock_timeout'), current_setting('idle_in_transaction_session_timeout')");
                    ResultSet rs = p.executeQuery()) {
                rs.next();
                return List.of(rs.getString(1), rs.getString(2), rs.getString(3));
            }
        });
        assertThat(settings).containsExactly("read committed", "5s", "30s");
    }

    /**
     * The first execution of a prepared statement goes on a one-off statement that carries the settings; the next ones
     * on the work's statement, whose parameters the work set once still hold; its results read as the driver's.
     */
    @Test
    void aPreparedStatementExecutedAgainKeepsItsParametersAndItsResults() throws SQLException {
        gate.write("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement(INSERT)) {
                p.setString(1, "again");
                assertThat(p.executeUpdate()).isEqualTo(1);
                assertThat(p.getUpdateCount()).isEqualTo(1);
                assertThat(p.getMoreResults()).isFalse();
                assertThat(p.execute()).isFalse(); // the parameter set before the first execution still holds
                p.setString(1, "third");
                assertThat(p.executeLargeUpdate()).isEqualTo(1L);
            }
            try (PreparedStatement p = tx.prepareStatement("UPDATE round_trip_notes SET note = note || '!'")) {
                assertThat(p.executeUpdate()).isEqualTo(4);
            }
        });

        assertThat(trips.calls())
                .containsExactly(
                        SETTINGS + INSERT,
                        INSERT,
                        INSERT,
                        "UPDATE round_trip_notes SET note = note || '!'",
                        CHECK_AND_COMMIT);
        assertThat(notes()).containsExactlyInAnyOrder("first!", "again!", "again!", "third!");
    }

    /** A batch, or a parameter read once from a stream, cannot carry the settings: they are sent on their own first. */
    @Test
    void aBatchOrAStreamSendsTheSettingsOnTheirOwn() throws SQLException {
        gate.write("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement(INSERT)) {
                p.setString(1, "batch 1");
                p.addBatch();
                p.setString(1, "batch 2");
                p.addBatch();
                assertThat(p.executeBatch()).containsExactly(1, 1);
            }
        });
        gate.write("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement(INSERT)) {
                p.setCharacterStream(1, new java.io.StringReader("streamed"));
                p.executeUpdate();
            }
        });

        String alone = SETTINGS.substring(0, SETTINGS.length() - 2);
        assertThat(trips.calls()).containsExactly(alone, INSERT, CHECK_AND_COMMIT, alone, INSERT, CHECK_AND_COMMIT);
        assertThat(notes()).containsExactlyInAnyOrder("first", "batch 1", "batch 2", "streamed");
    }

    /**
     * The check at the commit refuses a token below the mark after the work ran: nothing is kept, and the gate reads
     * the higher mark before it says stale. A mark re-based below the token is a retryable failure (the work is never
     * run twice); the next write checks first, raising the mark again.
     */
    @Test
    void theCheckAtTheCommitRefusesAStaleTokenAndARebaseIsRetryable() throws SQLException {
        FenceGate other = new FenceGate(database);
        other.advance("trips", 8);
        assertThatThrownBy(() -> gate.write("trips", 7, tx -> insert(tx, "stale")))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> assertThat(e.highestToken())
                        .isEqualTo(8));
        assertThat(notes()).containsExactly("first");

        FenceGate newer = new FenceGate(database);
        newer.advance("trips", 9);
        newer.write("trips", 9, tx -> insert(tx, "seen"));
        other.rebase("trips", 2, "the test", "a rebuilt ensemble");
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        assertThatThrownBy(() -> newer.write("trips", 9, tx -> {
                    runs.incrementAndGet();
                    insert(tx, "refused with the re-based mark");
                }))
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.retryable()).isTrue())
                .hasMessageContaining("below the token");
        assertThat(runs).as("the work runs once per call").hasValue(1);
        newer.write("trips", 9, tx -> {
            runs.incrementAndGet();
            insert(tx, "after the re-base");
        });
        assertThat(runs).hasValue(2);
        assertThat(notes()).containsExactly("first", "seen", "after the re-base");
        assertThat(newer.highestToken("trips")).hasValue(9);
    }

    /**
     * A stale leader's work that fails on the new leader's rows (a duplicate key) is told it is stale, as it would be
     * before its work where the check comes first: the gate reads the mark when the work fails.
     */
    @Test
    void aStaleLeadersWorkThatFailsOnTheNewLeadersRowsIsToldItIsStale() throws SQLException {
        try (Connection c = database.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS round_trip_charges (id INT PRIMARY KEY)");
            s.execute("DELETE FROM round_trip_charges");
        }
        FenceGate newer = new FenceGate(database);
        newer.advance("trips", 8);
        newer.write("trips", 8, tx -> charge(tx, 1));
        assertThatThrownBy(() -> gate.write("trips", 7, tx -> charge(tx, 1)))
                .isInstanceOfSatisfying(StaleTokenException.class, e -> {
                    assertThat(e.highestToken()).isEqualTo(8);
                    assertThat(e.getSuppressed()).singleElement().isInstanceOf(StoreException.class);
                });
    }

    /**
     * Calls that send nothing keep what the work set for the first execution (the settings still travel with it); a
     * getter of the statement leaves the first execution's results open; a first statement that failed before
     * anything was sent leaves the settings for the next one, and the session's own isolation never meets them late.
     */
    @Test
    void theFirstStatementKeepsWhatTheWorkSetAndItsResults() throws SQLException {
        FenceGate serializable = serializableGate();
        serializable.write("trips", 7, tx -> insert(tx, "seen"));
        List<String> read = serializable.call("trips", 7, tx -> {
            List<String> got = new ArrayList<>();
            try (PreparedStatement p = tx.prepareStatement(INSERT)) {
                p.setString(1, "after isClosed");
                assertThat(p.isClosed()).isFalse();
                p.executeUpdate();
            }
            try (PreparedStatement p = tx.prepareStatement("SELECT note FROM round_trip_notes ORDER BY note")) {
                p.setMaxRows(1);
                try (ResultSet rs = p.executeQuery()) {
                    assertThat(p.getMetaData().getColumnCount()).isEqualTo(1);
                    while (rs.next()) {
                        got.add(rs.getString(1));
                    }
                }
            }
            return got;
        });
        assertThat(read)
                .as("setMaxRows(1) replayed, the result set still open after getMetaData")
                .hasSize(1);

        String lockTimeout = serializable.call("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement(INSERT)) {
                p.executeUpdate(); // no parameter set: refused by the driver before anything is sent
            } catch (SQLException notSent) {
                // a work that goes on
            }
            try (PreparedStatement p = tx.prepareStatement("SELECT current_setting('lock_timeout')");
                    ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        });
        assertThat(lockTimeout).isEqualTo("5s");

        serializable.write("trips", 7, tx -> {
            try (PreparedStatement p = tx.prepareStatement(INSERT)) {
                p.executeUpdate(); // the same, and the work returns: the gate probes, then commits
            } catch (SQLException notSent) {
                // swallowed
            }
        });
        assertThat(notes()).containsExactlyInAnyOrder("first", "seen", "after isClosed");
    }

    /** A gate whose connections come at SERIALIZABLE, as a pool's default may be. */
    private FenceGate serializableGate() {
        return new FenceGate(new dev.leasehold.testkit.PlainDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                Connection c = database.getConnection();
                c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                return c;
            }
        });
    }

    private static void charge(Connection tx, int id) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO round_trip_charges (id) VALUES (?)")) {
            p.setInt(1, id);
            p.executeUpdate();
        }
    }

    /**
     * A failed statement aborts a PostgreSQL transaction; the COMMIT that follows only rolls it back. A work that
     * catches the failure and returns must not be told its write was kept, nor that the outcome is unknown.
     */
    @Test
    void aFailedStatementTheWorkSwallowedKeepsNothingAndSaysSo() throws SQLException {
        assertThatThrownBy(() -> gate.write("trips", 7, tx -> {
                    insert(tx, "lost with the abort");
                    try {
                        insert(tx, null); // NOT NULL: 23502, and the transaction is aborted
                    } catch (SQLException swallowed) {
                        // a work that logs the failure and goes on
                    }
                }))
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.retryable()).isFalse())
                .isNotInstanceOf(CommitOutcomeUnknownException.class)
                .hasMessageContaining("fenced write to 'trips' with token 7")
                .hasMessageContaining("nothing of the work was kept");
        assertThat(notes()).containsExactly("first");
        gate.write("trips", 7, tx -> insert(tx, "the next write passes"));
        assertThat(notes()).containsExactly("first", "the next write passes");
    }

    /**
     * A lock timeout (like a deadlock or a serialization failure) may end the whole transaction, fence check included;
     * a work that swallows it must not have what it did next committed, and may simply try again.
     */
    @Test
    void aLockTimeoutTheWorkSwallowedKeepsNothingAndIsRetryable() throws SQLException {
        FenceGate impatient = new FenceGate(trips, StoreConfig.defaults().withLockTimeout(Duration.ofMillis(200)));
        try (Connection holder = database.getConnection();
                Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.executeQuery("SELECT note FROM round_trip_notes WHERE note = 'first' FOR UPDATE")
                    .close();
            assertThatThrownBy(() -> impatient.write("trips", 7, tx -> {
                        insert(tx, "lost with the timeout");
                        try (PreparedStatement p =
                                tx.prepareStatement("UPDATE round_trip_notes SET note = 'changed' WHERE note = ?")) {
                            p.setString(1, "first");
                            p.executeUpdate(); // waits for the holder's row lock, then fails
                        } catch (SQLException swallowed) {
                            // a work that logs the failure and returns (here, anything it sent next would fail)
                        }
                    }))
                    .isInstanceOfSatisfying(
                            StoreException.class, e -> assertThat(e.retryable()).isTrue())
                    .isNotInstanceOf(CommitOutcomeUnknownException.class)
                    .hasMessageContaining("nothing of the work was kept");
            holder.rollback();
        }
        assertThat(notes()).containsExactly("first");
    }

    private static void insert(Connection tx, String note) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement(INSERT)) {
            p.setString(1, note);
            p.executeUpdate();
        }
    }

    private List<String> notes() throws SQLException {
        List<String> notes = new ArrayList<>();
        try (Connection c = database.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT note FROM round_trip_notes")) {
            while (rs.next()) {
                notes.add(rs.getString(1));
            }
        }
        return notes;
    }
}
