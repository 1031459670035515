package dev.leasehold.scenarios.chaos;

import dev.leasehold.scenarios.Ddl;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The table every participant's writes land in: what the checker reads as the committed history. */
final class HistoryTable {

    private HistoryTable() {}

    static String name(String prefix) {
        return prefix + "history";
    }

    static void create(DataSource dataSource, String prefix) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + name(prefix) + " (id " + Ddl.identity(c) + " PRIMARY KEY,"
                    + " resource VARCHAR(100) NOT NULL, participant VARCHAR(20) NOT NULL, token BIGINT NOT NULL,"
                    + " seq BIGINT NOT NULL, session BIGINT NOT NULL)");
        }
    }

    /** Every committed write, in commit order (the identity column). */
    static List<HistoryChecker.Committed> read(DataSource dataSource, String prefix) throws SQLException {
        List<HistoryChecker.Committed> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, resource, participant, token, seq, session FROM "
                     + name(prefix) + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(new HistoryChecker.Committed(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                        rs.getLong(5), rs.getLong(6)));
            }
        }
        return rows;
    }
}
