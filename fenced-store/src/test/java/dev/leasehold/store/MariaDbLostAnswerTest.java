package dev.leasehold.store;

import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** The lost-answer contract on a real MariaDB server (skipped unless LEASEHOLD_TEST_MARIADB_URL is set). */
@WithMariaDb
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbLostAnswerTest extends LostAnswerContract {

    /** jdbc:mariadb://host:port/database?options */
    private static final Pattern URL = Pattern.compile("(jdbc:mariadb://)([^:/]+):(\\d+)(/leasehold_test)([?].*)?");

    private DataSource direct;
    private Matcher url;

    @BeforeAll
    void createDatabase() {
        direct = MariaDb.freshDatabase("lost_answer");
        url = URL.matcher(MariaDb.url());
        if (!url.matches()) {
            throw new IllegalStateException(MariaDb.VARIABLE + " must look like jdbc:mariadb://host:port/leasehold_test"
                    + "?options for this test, was " + MariaDb.url());
        }
    }

    @Override
    protected DataSource direct() {
        return direct;
    }

    @Override
    protected DataSource through(int port) {
        return MariaDb.dataSource(
                url.group(1) + "127.0.0.1:" + port + url.group(4) + "_lost_answer"
                        + (url.group(5) == null ? "" : url.group(5)),
                "");
    }

    @Override
    protected String host() {
        return url.group(2);
    }

    @Override
    protected int port() {
        return Integer.parseInt(url.group(3));
    }

    @Override
    protected boolean oneStatementClaims() {
        return false;
    }

    @Override
    protected boolean updateInOneRoundTrip() {
        return false;
    }
}
