package dev.leasehold.spring.fence;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** What a fence check could leave behind on a PostgreSQL session: its lock timeout and idle bound. */
final class PostgresSessions {

    private PostgresSessions() {}

    static String state(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT current_setting('lock_timeout'),"
                        + " current_setting('idle_in_transaction_session_timeout'),"
                        + " current_setting('default_transaction_read_only')")) {
            row.next();
            return "lockTimeout=" + row.getString(1) + " idle=" + row.getString(2) + " defaultReadOnly="
                    + row.getString(3);
        }
    }
}
