package dev.leasehold.scenarios.ops;

import dev.leasehold.scenarios.cli.DatabaseErrors;
import dev.leasehold.scenarios.cli.DatabaseOptions;
import dev.leasehold.scenarios.cli.EnvException;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.StoreException;
import dev.leasehold.testkit.SimpleDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Opens the database an operator's command names, and checks, reading only, that the store's schema is there at
 * this release's version. Stateless, thread-safe.
 */
final class StoreAccess {

    private StoreAccess() {}

    /** A data source for {@code --jdbc}, reachable and with the schema in place; an {@link EnvException} if not. */
    static DataSource open(DatabaseOptions database, StoreConfig config) {
        String url = database.jdbc();
        DataSource ds = new SimpleDataSource(url, database.user(), database.password());
        try (Connection c = ds.getConnection()) {
            c.isValid(5);
        } catch (SQLException e) {
            throw DatabaseErrors.connecting(url, database.user(), e);
        }
        try {
            FencedSchema.verify(ds, config);
        } catch (StoreException e) {
            throw new EnvException(e.getMessage(), e);
        }
        return ds;
    }
}
