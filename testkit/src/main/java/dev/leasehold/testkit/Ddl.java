package dev.leasehold.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The few DDL words a test's own tables need that differ per database (the history table, the scenarios' ledgers).
 * Stateless and thread-safe.
 */
public final class Ddl {

    private Ddl() {}

    /**
     * An identity column's type: AUTO_INCREMENT on MariaDB and MySQL, the SQL standard's elsewhere.
     *
     * @param c a connection to the database the table is for
     * @return the column type, to be followed by {@code PRIMARY KEY}
     * @throws SQLException if the database's product name cannot be read
     */
    public static String identity(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        return product.contains("mariadb") || product.contains("mysql")
                ? "BIGINT AUTO_INCREMENT"
                : "BIGINT GENERATED ALWAYS AS IDENTITY";
    }
}
