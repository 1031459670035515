package dev.leasehold.store.internal;

import dev.leasehold.store.Database;
import dev.leasehold.store.StoreException;
import dev.leasehold.store.internal.h2.H2Dialect;
import dev.leasehold.store.internal.mariadb.MariaDbDialect;
import dev.leasehold.store.internal.postgres.PostgresDialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The one place that knows every database: which dialect speaks to it, and how a connection's
 * {@link DatabaseMetaData} names it. Everything a database does differently lives in its own package
 * ({@code internal.postgres}, {@code internal.h2}, {@code internal.mariadb}); adding a database is a package of its
 * own plus a line in {@link #of} and one in {@link #fromProductName}. Stateless and thread-safe.
 */
public final class Dialects {

    private Dialects() {}

    /** The dialect of {@code database}, naming the tables {@code tables}. */
    public static SqlDialect of(Database database, Tables tables) {
        return switch (database) {
            case POSTGRESQL -> new PostgresDialect(tables);
            case H2 -> new H2Dialect(tables);
            case MARIADB, MYSQL -> new MariaDbDialect(tables, database);
        };
    }

    /** The database behind {@code connection}, from its metadata; refuses settings the store cannot work with. */
    public static Database detect(Connection connection) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        Database database = fromProductName(meta.getDatabaseProductName());
        if (database == Database.MARIADB || database == Database.MYSQL) {
            MariaDbDialect.refuseAffectedRows(meta.getURL());
            MariaDbDialect.refuseTransactionReplay(meta.getURL());
        }
        return database;
    }

    static Database fromProductName(String product) {
        String name = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return Database.POSTGRESQL;
        }
        if (name.equals("h2")) {
            return Database.H2;
        }
        if (name.contains("mariadb")) {
            return Database.MARIADB;
        }
        if (name.contains("mysql")) {
            return Database.MYSQL;
        }
        throw new StoreException("the fenced store speaks PostgreSQL, H2, MariaDB and MySQL, not '" + product
                + "'; set StoreConfig.withDatabase(...) only if this database is compatible with one of them");
    }
}
