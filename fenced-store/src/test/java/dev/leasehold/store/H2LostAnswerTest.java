package dev.leasehold.store;

import java.sql.SQLException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The lost-answer contract on H2 2.x in server mode (an in-memory database behind H2's TCP server on loopback), the
 * proxy between the TCP client and that server. Embedded H2 has no wire to lose an answer on.
 */
class H2LostAnswerTest extends LostAnswerContract {

    private static Server server;
    private static JdbcDataSource direct;

    @BeforeAll
    static void startServer() throws SQLException {
        server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
        direct = dataSource(server.getPort());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.stop();
        }
    }

    private static JdbcDataSource dataSource(int port) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:lost-answer;DB_CLOSE_DELAY=-1");
        return ds;
    }

    @Override
    protected DataSource direct() {
        return direct;
    }

    @Override
    protected DataSource through(int port) {
        return dataSource(port);
    }

    @Override
    protected String host() {
        return "127.0.0.1";
    }

    @Override
    protected int port() {
        return server.getPort();
    }

    @Override
    protected int requestsAfterText() {
        return 1;
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
