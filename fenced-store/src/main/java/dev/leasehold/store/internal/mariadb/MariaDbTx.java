package dev.leasehold.store.internal.mariadb;

import dev.leasehold.store.internal.TxDialect;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * MariaDB's and MySQL's transaction framing: the connection's isolation and the session's
 * {@code innodb_lock_wait_timeout} are set before the transaction and restored after it, only where they differ. The
 * variable counts whole seconds: the lock timeout is rounded up to the next second (at least 1). (A per-transaction
 * {@code SET TRANSACTION ISOLATION LEVEL} would need a round trip of its own anyway: the drivers send one statement
 * per round trip unless {@code allowMultiQueries} is set.) Immutable and thread-safe.
 */
final class MariaDbTx extends TxDialect {

    MariaDbTx(long lockTimeoutMillis) {
        super(lockTimeoutMillis);
    }

    @Override
    public Restore enter(Connection connection) throws SQLException {
        return enterSession(
                connection,
                "@@SESSION.innodb_lock_wait_timeout",
                "SET SESSION innodb_lock_wait_timeout = ",
                Math.max(1, (lockTimeoutMillis() + 999) / 1000));
    }
}
