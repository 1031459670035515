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
 * Issue 24 on PostgreSQL: what a fenced write sends. A function or trigger cannot end the transaction here, so a work
 * of plain DML needs no mark of the gate's transaction and no check of it before the commit: the framing with the
 * check, the work, the COMMIT (three round trips; a plain transaction is two). Work that could end the transaction is
 * marked before it and verified before the commit; a failed statement the work swallows is reported, with nothing kept.
 */
class PostgresRoundTripsTest {

    private static final String INSERT = "INSERT INTO round_trip_notes (note) VALUES (?)";

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
    void aWorkOfPlainDmlIsTheCheckTheWorkAndTheCommit() throws SQLException {
        gate.write("trips", 7, tx -> insert(tx, "second"));

        List<String> calls = trips.calls();
        assertThat(calls).hasSize(3);
        assertThat(calls.get(0)).contains("FOR SHARE").contains("SET LOCAL lock_timeout");
        assertThat(calls.get(1)).isEqualTo(INSERT);
        assertThat(calls.get(2)).isEqualTo("COMMIT");
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

        List<String> calls = trips.calls();
        assertThat(calls).hasSize(7);
        assertThat(calls.get(0)).contains("FOR SHARE");
        assertThat(calls.subList(1, 7))
                .containsExactly(
                        INSERT,
                        "SELECT txid_current()",
                        "SET LOCAL statement_timeout = 5000",
                        INSERT,
                        "SELECT txid_current()",
                        "COMMIT");
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

        List<String> calls = trips.calls();
        assertThat(calls.get(0)).contains("FOR SHARE");
        assertThat(calls.subList(1, calls.size()))
                .containsExactly("SELECT COUNT(*) FROM round_trip_notes", INSERT, "COMMIT");
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

        assertThat(trips.calls().subList(1, trips.calls().size()))
                .containsExactly(
                        "SELECT ARRAY[1, 2]", "SELECT txid_current()", INSERT, "SELECT txid_current()", "COMMIT");
        assertThat(notes()).containsExactly("first", "second");
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
