package dev.leasehold.store;

import dev.leasehold.store.testing.SharedPostgres;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.postgresql.ds.PGSimpleDataSource;

/** The lost-answer contract on the shared embedded PostgreSQL 17, through a proxy in front of its port. */
class PostgresLostAnswerTest extends LostAnswerContract {

    private static final String DATABASE = "lost_answer";
    private static DataSource direct;

    @BeforeAll
    static void createDatabase() {
        direct = SharedPostgres.freshDatabase(DATABASE);
    }

    @Override
    protected DataSource direct() {
        return direct;
    }

    @Override
    protected DataSource through(int port) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setPortNumbers(new int[] {port});
        ds.setDatabaseName(DATABASE);
        ds.setUser("postgres");
        return ds;
    }

    @Override
    protected String host() {
        return "127.0.0.1";
    }

    @Override
    protected int port() {
        return SharedPostgres.port();
    }

    @Override
    protected boolean oneStatementClaims() {
        return true;
    }

    @Override
    protected boolean updateInOneRoundTrip() {
        return true;
    }
}
