package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.testing.PgBouncer;
import dev.leasehold.store.testing.PgBouncerDatabase;
import dev.leasehold.store.testing.WithPgBouncer;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The gate's contract through PgBouncer in transaction pooling mode ({@link PgBouncer}: skipped unless set). */
@WithPgBouncer
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerFencedStoreTest extends FencedStoreContract {

    private final PgBouncerDatabase database = new PgBouncerDatabase("fenced_store");

    @Override
    protected DataSource dataSource() {
        return database.dataSource();
    }

    @Override
    protected DataSource impatientDataSource() {
        return database.impatient();
    }

    @Override
    protected int sessionsWaitingOnLocks(Connection connection) throws SQLException {
        return database.waitingOnLocks(connection);
    }

    /**
     * Issue 21: PgJDBC's defaults behind a transaction-mode PgBouncer. After five runs of one SQL a connection
     * prepares it as a named server statement ({@code S_1}...), which stays on whichever server connection ran it; a
     * second client's {@code S_1} then collides with it. Two client connections used in turn, one server connection
     * behind them: the store must say what to set, not report an unknown commit outcome or a bare driver error.
     */
    @Test
    void withoutPrepareThresholdZeroTheStoreSaysWhatToSet() throws SQLException {
        PgBouncer.freshDatabase("prepare");
        String url = PgBouncer.url()
                .replace("/leasehold_test?", "/leasehold_test_prepare?")
                .replace("&prepareThreshold=0", "");
        DataSource direct = PgBouncer.dataSource(url);
        FencedSchema.install(direct);
        try (Connection a = direct.getConnection();
                Connection b = direct.getConnection()) {
            DataSource inTurn = new InTurn(a, b);
            FenceGate gate = new FenceGate(inTurn);
            Throwable failure = null;
            for (int i = 0; i < 40 && failure == null; i++) {
                try {
                    gate.write("ledger", 7, tx -> {});
                } catch (StoreException e) {
                    failure = e;
                }
            }
            assertThat(failure)
                    .as("PgJDBC's named statements collided on the shared server connection")
                    .isNotNull()
                    .isNotInstanceOf(CommitOutcomeUnknownException.class)
                    .hasMessageContaining("prepareThreshold=0");
        }
    }

    /** Hands out two open connections in turn, as a pool would; close() leaves them open. */
    private static final class InTurn extends dev.leasehold.testkit.PlainDataSource {
        private final Connection[] connections;
        private int next;

        InTurn(Connection... connections) {
            this.connections = connections;
        }

        @Override
        public synchronized Connection getConnection() {
            Connection target = connections[next++ % connections.length];
            return (Connection) java.lang.reflect.Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close")) {
                            return null;
                        }
                        try {
                            return method.invoke(target, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
