package dev.leasehold.examples.fencebench;

import dev.leasehold.spring.Fenced;
import dev.leasehold.store.FenceGate;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.annotation.Transactional;

/**
 * The transactions the bench compares, each the same work plain and {@link Fenced}: a JPA save (flushed at commit) and
 * a {@code JdbcTemplate} insert, each in its own {@code @Transactional} call, under the context's one transaction
 * manager ({@code JpaTransactionManager}, which JdbcTemplate joins). The fenced methods check the current grant's token
 * on {@link #RESOURCE}, one resource for every thread. Two references show where the fenced side's time goes: the
 * JdbcTemplate insert with the gate's check by hand (no Spring advice, no backstop before the commit), and with one
 * statement that does nothing ({@code select 1}: the price of one round trip).
 */
public class Writes {

    /** The one resource every fenced transaction is checked on. */
    public static final String RESOURCE = "fence-bench";

    /** The resource of the set-up's probe: a newer leader holds its mark, so the probe must be refused. */
    public static final String PROBE = "fence-bench-probe";

    /** The table of the JdbcTemplate rows. */
    static final String JDBC_TABLE = "fb_jdbc_entry";

    static final String INSERT = "insert into " + JDBC_TABLE + " (thread, token) values (?, ?)";

    private final EntryRepository entries;
    private final JdbcTemplate jdbc;
    private final FenceGate gate;
    private final DataSource dataSource;

    /**
     * The bench's writes.
     *
     * @param entries    the JPA repository
     * @param jdbc       the JdbcTemplate on the context's DataSource
     * @param gate       the starter's gate, for the reference checked by hand
     * @param dataSource the context's DataSource, whose transactional connection the reference checks on
     */
    public Writes(EntryRepository entries, JdbcTemplate jdbc, FenceGate gate, DataSource dataSource) {
        this.entries = entries;
        this.jdbc = jdbc;
        this.gate = gate;
        this.dataSource = dataSource;
    }

    /**
     * A JPA save, plain.
     *
     * @param thread the bench thread
     * @param token  the leader's token, stored as data
     */
    @Transactional
    public void jpaPlain(int thread, long token) {
        entries.save(new Entry(thread, token));
    }

    /**
     * The same JPA save, fenced: the check runs in the transaction before the body, and its lock lasts until the commit
     * that flushes the insert.
     *
     * @param thread the bench thread
     * @param token  the leader's token, stored as data
     */
    @Fenced(RESOURCE)
    @Transactional
    public void jpaFenced(int thread, long token) {
        entries.save(new Entry(thread, token));
    }

    /**
     * A JdbcTemplate insert, plain.
     *
     * @param thread the bench thread
     * @param token  the leader's token, stored as data
     */
    @Transactional
    public void jdbcPlain(int thread, long token) {
        jdbc.update(INSERT, thread, token);
    }

    /**
     * The same JdbcTemplate insert, fenced.
     *
     * @param thread the bench thread
     * @param token  the leader's token, stored as data
     */
    @Fenced(RESOURCE)
    @Transactional
    public void jdbcFenced(int thread, long token) {
        jdbc.update(INSERT, thread, token);
    }

    /**
     * Reference: the JdbcTemplate insert with {@code FenceGate.check} by hand on the transaction's connection, as
     * docs/your-transaction.md shows without the starter: the check alone, without {@code @Fenced}'s advice and backstop.
     *
     * @param thread the bench thread
     * @param token  the leader's token, checked and stored
     */
    @Transactional
    public void jdbcCheckedByHand(int thread, long token) {
        Connection tx = DataSourceUtils.getConnection(dataSource);
        try {
            gate.check(tx, RESOURCE, token);
        } finally {
            DataSourceUtils.releaseConnection(tx, dataSource); // transactional: stays bound until the commit
        }
        jdbc.update(INSERT, thread, token);
    }

    /**
     * Reference: the JdbcTemplate insert after one statement that reads and locks nothing, the cost of one round trip.
     *
     * @param thread the bench thread
     * @param token  the leader's token, stored as data
     */
    @Transactional
    public void jdbcOneMoreRoundTrip(int thread, long token) {
        jdbc.queryForObject("select 1", Integer.class);
        jdbc.update(INSERT, thread, token);
    }

    /**
     * The set-up's probe: a fenced insert on {@link #PROBE}, whose mark a newer token holds, so it must throw
     * {@code StaleTokenException} and write nothing (thread -1).
     *
     * @param token the leader's token, stored as data
     */
    @Fenced(PROBE)
    @Transactional
    public void probe(long token) {
        jdbc.update(INSERT, -1, token);
    }
}
