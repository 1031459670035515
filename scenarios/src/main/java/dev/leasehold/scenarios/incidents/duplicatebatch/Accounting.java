package dev.leasehold.scenarios.incidents.duplicatebatch;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The accounting system of the lock form, as a table: one row per batch pushed to it, with the pod that pushed it and
 * the token it carried (0 for a lock without one). A batch pushed twice is two rows. The next batch to push is the
 * first of {@code batch-0}, {@code batch-1}, ... with no row yet, as the pods' code reads it before processing.
 */
final class Accounting {

    private static final int BATCHES = 10;

    private final DataSource ds;
    private final String table;

    private Accounting(DataSource ds, String prefix) {
        this.ds = ds;
        this.table = prefix + "accounting";
    }

    /** Creates the run's table (its name begins with the run's table prefix). */
    static Accounting create(DataSource ds, String prefix) throws SQLException {
        Accounting accounting = new Accounting(ds, prefix);
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + accounting.table + " (batch VARCHAR(20) NOT NULL, pod VARCHAR(20) NOT NULL,"
                    + " token BIGINT NOT NULL)");
        }
        return accounting;
    }

    /** The first batch not pushed yet. */
    String nextBatch() throws SQLException {
        for (int i = 0; i < BATCHES; i++) {
            if (pushers("batch-" + i).isEmpty()) {
                return "batch-" + i;
            }
        }
        return "none";
    }

    /** Pushes {@code batch} on its own connection: what a pod without a token does. */
    void push(String batch, String pod, long token) throws SQLException {
        try (Connection c = ds.getConnection()) {
            push(c, batch, pod, token);
        }
    }

    /** Pushes {@code batch} on {@code c}: inside a fenced transaction, the gate's. */
    void push(Connection c, String batch, String pod, long token) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement("INSERT INTO " + table + " (batch, pod, token) VALUES (?, ?, ?)")) {
            s.setString(1, batch);
            s.setString(2, pod);
            s.setLong(3, token);
            s.executeUpdate();
        }
    }

    /** Who pushed {@code batch}, one entry per push, in the order of the pods' names. */
    List<String> pushers(String batch) throws SQLException {
        List<String> pods = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT pod FROM " + table + " WHERE batch = ? ORDER BY pod, token")) {
            s.setString(1, batch);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    pods.add(rs.getString(1));
                }
            }
        }
        return pods;
    }
}
