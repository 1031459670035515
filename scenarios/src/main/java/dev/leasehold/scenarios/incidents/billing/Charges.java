package dev.leasehold.scenarios.incidents.billing;

import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.testkit.Ddl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The charges table of one run of the nightly billing stories (stale-leader, stuck-leader): six customers of one
 * period, a row per charge; {@code keyed} adds the idempotency key (customer, period). A fenced charge goes through
 * the gate, and a refusal is kept as a line for the verdicts.
 */
record Charges(DataSource ds, String table) {

    static final List<String> CUSTOMERS = List.of("c1", "c2", "c3", "c4", "c5", "c6");
    static final String PERIOD = "2026-11";
    static final String RESOURCE = "billing-" + PERIOD;

    static Charges create(DataSource ds, String prefix, boolean keyed) throws SQLException {
        Charges charges = new Charges(ds, prefix + "charges");
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + charges.table + " (id " + Ddl.identity(c) + " PRIMARY KEY,"
                    + " customer VARCHAR(20) NOT NULL, period VARCHAR(10) NOT NULL, instance VARCHAR(10) NOT NULL,"
                    + " token BIGINT" + (keyed ? ", UNIQUE (customer, period)" : "") + ")");
        }
        return charges;
    }

    void insert(Connection c, String customer, String instance, Long token) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(
                "INSERT INTO " + table + " (customer, period, instance, token) VALUES (?, ?, ?, ?)")) {
            p.setString(1, customer);
            p.setString(2, PERIOD);
            p.setString(3, instance);
            if (token == null) {
                p.setNull(4, Types.BIGINT);
            } else {
                p.setLong(4, token);
            }
            p.executeUpdate();
        }
    }

    void insert(String customer, String instance, Long token) throws SQLException {
        try (Connection c = ds.getConnection()) {
            insert(c, customer, instance, token);
        }
    }

    /**
     * {@code me} charges {@code customer} through {@code gate} with {@code token}: true if the charge landed; false if
     * the gate refused the token as stale, with the refusal added to {@code rejections} and the timeline.
     */
    boolean chargeFenced(
            FenceGate gate, Timeline timeline, List<String> rejections, String me, String customer, long token)
            throws SQLException {
        try {
            gate.write(RESOURCE, token, tx -> insert(tx, customer, me, token));
            timeline.accepted(me, "charged " + customer + " with token " + token, token, customer);
            return true;
        } catch (StaleTokenException e) {
            synchronized (rejections) {
                rejections.add(me + "'s charge of " + customer + " with token " + e.offeredToken() + " (highest "
                        + e.highestToken() + ")");
            }
            timeline.rejected(
                    me,
                    "charge of " + customer + " REJECTED: stale token " + e.offeredToken() + " < " + e.highestToken(),
                    token,
                    customer);
            return false;
        }
    }

    /** Charges per customer, every customer listed (0 for one never charged), in the story's order. */
    Map<String, Integer> countByCustomer() throws SQLException {
        Map<String, Integer> counts = new LinkedHashMap<>();
        CUSTOMERS.forEach(customer -> counts.put(customer, 0));
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT customer, COUNT(*) FROM " + table + " GROUP BY customer")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getInt(2));
            }
        }
        return counts;
    }

    /** The customers charged at least once. */
    Set<String> charged() throws SQLException {
        return countByCustomer().entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The customers charged exactly {@code times} times, as a verdict lists them ("none" for no one). */
    static String customersWith(Map<String, Integer> counts, int times) {
        String list = counts.entrySet().stream()
                .filter(e -> e.getValue() == times)
                .map(Map.Entry::getKey)
                .collect(Collectors.joining(", "));
        return list.isEmpty() ? "none" : list;
    }
}
