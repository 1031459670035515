package dev.leasehold.testkit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The table every participant's writes land in, {@code <prefix>history}: what {@link HistoryChecker} reads as the
 * committed history. Write a row in the same transaction as the fenced work it stands for, so that it commits if and
 * only if the work does. Works on H2, PostgreSQL, MariaDB and MySQL.
 *
 * <p>Thread-safe: it keeps no state.
 */
public final class HistoryTable {

    /** One write: who wrote it, with which token, its sequence number within the grant, and the ZooKeeper session. */
    public record Write(String resource, String participant, long token, long seq, long session) {
        /**
         * @param resource    the fenced resource (1 to 100 characters)
         * @param participant who wrote (1 to 20 characters)
         * @param token       the token it wrote with
         * @param seq         the write's number within its grant
         * @param session     the writer's ZooKeeper session id
         * @throws IllegalArgumentException if resource or participant is empty or too long
         */
        public Write {
            if (resource == null || resource.isEmpty() || resource.length() > 100) {
                throw new IllegalArgumentException("resource must be 1 to 100 characters, was " + resource);
            }
            if (participant == null || participant.isEmpty() || participant.length() > 20) {
                throw new IllegalArgumentException("participant must be 1 to 20 characters, was " + participant);
            }
        }
    }

    private HistoryTable() {}

    /** What a prefix may be: the store's own rule for its table prefix ({@code StoreConfig.tablePrefix}). */
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,29}");

    /**
     * Every method goes through here, so a prefix never reaches SQL unchecked.
     *
     * @param prefix the table prefix: lower-case letters, digits and underscores, starting with a letter, at most 30
     * @return the table's name, {@code <prefix>history}
     * @throws IllegalArgumentException if the prefix is not of that form
     */
    public static String name(String prefix) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("prefix must match " + PREFIX.pattern()
                    + " (lower-case letters, digits and underscores, starting with a letter), was "
                    + (prefix == null ? "null" : "'" + prefix.replaceAll("\\p{Cntrl}", "?") + "'"));
        }
        return prefix + "history";
    }

    /**
     * Creates the table; its identity column orders rows by commit.
     *
     * @param dataSource the database
     * @param prefix     the table prefix
     * @throws SQLException if the table cannot be created (it exists already, say)
     */
    public static void create(DataSource dataSource, String prefix) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + name(prefix) + " (id " + Ddl.identity(c) + " PRIMARY KEY,"
                    + " resource VARCHAR(100) NOT NULL, participant VARCHAR(20) NOT NULL, token BIGINT NOT NULL,"
                    + " seq BIGINT NOT NULL, session BIGINT NOT NULL)");
        }
    }

    /**
     * Inserts one row on {@code tx}, in whatever transaction it is in (the fenced write's, ideally).
     *
     * @param tx     the connection of the fenced write's transaction
     * @param prefix the table prefix
     * @param write  the row
     * @throws SQLException if the insert fails
     */
    public static void insert(Connection tx, String prefix, Write write) throws SQLException {
        try (PreparedStatement p = tx.prepareStatement("INSERT INTO " + name(prefix) + " (resource, participant,"
                + " token, seq, session) VALUES (?, ?, ?, ?, ?)")) {
            p.setString(1, write.resource());
            p.setString(2, write.participant());
            p.setLong(3, write.token());
            p.setLong(4, write.seq());
            p.setLong(5, write.session());
            p.executeUpdate();
        }
    }

    /**
     * Whether {@code write} was committed: what a writer whose commit's outcome is unknown (the connection lost during
     * {@code COMMIT}, a failover) reads back before it decides. Read from wherever {@code dataSource} connects now (on
     * a replicated database, the primary of the moment).
     *
     * @param dataSource the database
     * @param prefix     the table prefix
     * @param write      the row the writer tried to insert
     * @return whether a row of that participant, token and sequence number is in the table
     * @throws SQLException if the table cannot be read
     */
    public static boolean contains(DataSource dataSource, String prefix, Write write) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement p = c.prepareStatement("SELECT 1 FROM " + name(prefix)
                        + " WHERE resource = ? AND participant = ? AND token = ? AND seq = ?")) {
            p.setString(1, write.resource());
            p.setString(2, write.participant());
            p.setLong(3, write.token());
            p.setLong(4, write.seq());
            try (ResultSet rs = p.executeQuery()) {
                return rs.next();
            }
        }
    }

    /**
     * Reads every committed write.
     *
     * @param dataSource the database
     * @param prefix     the table prefix
     * @return the rows in commit order (the identity column)
     * @throws SQLException if the table cannot be read
     */
    public static List<HistoryChecker.Committed> read(DataSource dataSource, String prefix) throws SQLException {
        List<HistoryChecker.Committed> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, resource, participant, token, seq, session FROM "
                        + name(prefix) + " ORDER BY id")) {
            while (rs.next()) {
                rows.add(new HistoryChecker.Committed(
                        rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5), rs.getLong(6)));
            }
        }
        return rows;
    }
}
