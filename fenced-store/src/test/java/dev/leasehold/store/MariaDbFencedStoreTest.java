package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The contract on a real MariaDB server ({@link MariaDb}: skipped unless LEASEHOLD_TEST_MARIADB_URL is set). */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbFencedStoreTest extends FencedStoreContract {

    private DataSource dataSource;
    private DataSource impatient;

    @BeforeAll
    void createDatabase() {
        dataSource = MariaDb.freshDatabase("fenced_store", "sessionVariables=innodb_lock_wait_timeout=10");
        impatient = MariaDb.dataSource(
                MariaDb.url().replaceFirst("/leasehold_test([?]|$)", "/leasehold_test_fenced_store$1"),
                "sessionVariables=innodb_lock_wait_timeout=1");
    }

    @Override
    protected DataSource dataSource() {
        return dataSource;
    }

    @Override
    protected DataSource impatientDataSource() {
        return impatient;
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return MariaDb.waitingOnLocks(connection);
    }

    @Override
    protected String identityType() {
        return "BIGINT AUTO_INCREMENT";
    }

    /**
     * Found rows, not affected rows: an UPDATE of the fence row that writes the values it already has (an equal token
     * in the same microsecond) counts 1 with the driver's default, so the gate never calls the current writer stale.
     * Forced here by writing the row's own values, since two writes in one tick cannot be arranged from a test.
     */
    @Test
    void anEqualTokenWriteThatChangesNothingInTheRowStillCountsAsPassed() throws SQLException {
        FenceGate gate = new FenceGate(dataSource);
        gate.advance("ledger", 7);
        try (Connection c = dataSource.getConnection();
                PreparedStatement same = c.prepareStatement("UPDATE leasehold_fence SET token = ?, updated_at ="
                        + " updated_at WHERE resource = ? AND token <= ?")) {
            same.setLong(1, 7);
            same.setString(2, "ledger");
            same.setLong(3, 7);
            assertThat(same.executeUpdate())
                    .as("rows counted for an UPDATE that changes nothing")
                    .isEqualTo(1);
        }
        for (int i = 0; i < 20; i++) {
            gate.write("ledger", 7, tx -> {}); // back to back: some land in the same tick as the one before
        }
        assertThat(gate.highestToken("ledger")).hasValue(7);
    }

    /**
     * URL options the store cannot work with are refused up front, writing nothing: with affected-rows counts the gate
     * would refuse a current writer; with transaction replay the driver would send a transaction again after a
     * failover, the gate's check included, without the gate reading the check's new answer.
     */
    @ParameterizedTest
    @ValueSource(strings = {"useAffectedRows=true", "transactionReplay=true"})
    void aUrlWithAnOptionTheStoreCannotWorkWithIsRefusedWithAMessageThatSaysWhy(String option) {
        DataSource refused = MariaDb.dataSource(
                MariaDb.url().replaceFirst("/leasehold_test([?]|$)", "/leasehold_test_fenced_store$1"), option);
        assertThatThrownBy(() -> new FenceGate(refused).advance("refused", 1))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(option);
        assertThat(new FenceGate(dataSource).highestToken("refused")).isEmpty();
    }

    /** Keys compare in binary (utf8mb4_bin): with the default case-insensitive collation these would be one fence. */
    @Test
    void resourcesThatDifferOnlyInCaseAreTwoFences() {
        FenceGate gate = new FenceGate(dataSource);
        gate.advance("Billing", 9);
        gate.advance("billing", 2);
        assertThat(gate.highestToken("Billing")).hasValue(9);
        assertThat(gate.highestToken("billing")).hasValue(2);
    }
}
