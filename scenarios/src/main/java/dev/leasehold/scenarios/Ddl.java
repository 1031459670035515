package dev.leasehold.scenarios;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The few DDL words the scenarios' own tables need that differ per database. Stateless and thread-safe. */
public final class Ddl {

    private Ddl() {}

    /** An identity column's type: AUTO_INCREMENT on MariaDB and MySQL, the SQL standard's elsewhere. */
    public static String identity(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        return product.contains("mariadb") || product.contains("mysql") ? "BIGINT AUTO_INCREMENT"
                : "BIGINT GENERATED ALWAYS AS IDENTITY";
    }
}
