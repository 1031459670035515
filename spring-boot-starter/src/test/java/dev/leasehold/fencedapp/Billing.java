package dev.leasehold.fencedapp;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import dev.leasehold.spring.Fenced;
import dev.leasehold.spring.LeaseholdFence;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The billing service of the tests, in the shapes a team writes: {@code @Fenced @Transactional} methods that write
 * through JPA, JdbcTemplate and jOOQ, and the variants the issue names (a check after the writes, a caught
 * {@link StaleTokenException}, read-only, no transaction, the gate's own transaction inside a Spring one).
 */
public class Billing {

    public static final String JPA = "sf-jpa";
    public static final String BULK = "sf-bulk";
    public static final String JDBC = "sf-jdbc";
    public static final String JOOQ = "sf-jooq";
    public static final String OUTER = "sf-outer";
    public static final String INNER = "sf-inner";
    public static final String PAUSED = "sf-paused";
    public static final String MANY = "sf-many";
    public static final String INSERT = "insert into sf_invoice (customer, paid) values (?, false)";

    private final InvoiceRepository invoices;
    private final JdbcTemplate jdbc;
    private final DSLContext jooq;
    private final LeaseholdFence fence;
    private final FenceGate gate;
    private final InnerBilling inner;

    public Billing(
            InvoiceRepository invoices,
            JdbcTemplate jdbc,
            DSLContext jooq,
            LeaseholdFence fence,
            FenceGate gate,
            InnerBilling inner) {
        this.invoices = invoices;
        this.jdbc = jdbc;
        this.jooq = jooq;
        this.fence = fence;
        this.gate = gate;
        this.inner = inner;
    }

    /** JPA save, flushed at commit: after the check. */
    @Fenced(JPA)
    @Transactional
    public void save(String customer) {
        invoices.save(new Invoice(customer));
    }

    /** A JPQL bulk update. */
    @Fenced(BULK)
    @Transactional
    public int markPaid(String customer) {
        return invoices.markPaid(customer);
    }

    @Fenced(JDBC)
    @Transactional
    public void insertWithJdbcTemplate(String customer) {
        jdbc.update(INSERT, customer);
    }

    @Fenced(JOOQ)
    @Transactional
    public void insertWithJooq(String customer) {
        jooq.insertInto(table(unquotedName("sf_invoice")), field(unquotedName("customer")), field(unquotedName("paid")))
                .values(customer, false)
                .execute();
    }

    /** The check placed after the writes (JPA flushed, JdbcTemplate). */
    @Transactional
    public void writeThenCheck(String resource, String customer) {
        invoices.saveAndFlush(new Invoice(customer));
        jdbc.update(INSERT, customer);
        fence.check(resource);
    }

    /** Catches the refusal and returns normally: the transaction must still roll back. */
    @Transactional
    public boolean writeAndSwallowStale(String resource, String customer) {
        jdbc.update(INSERT, customer);
        try {
            fence.check(resource);
            return false;
        } catch (StaleTokenException e) {
            return true;
        }
    }

    /** A fenced transaction that calls a REQUIRES_NEW one, fenced on its own resource; the inner refusal is caught. */
    @Fenced(OUTER)
    @Transactional
    public boolean outerWithInner(String customer) {
        jdbc.update(INSERT, customer + "-outer");
        try {
            inner.insert(customer + "-inner");
            return false;
        } catch (StaleTokenException e) {
            return true;
        }
    }

    @Fenced(JPA)
    @Transactional(readOnly = true)
    public long countReadOnly() {
        return invoices.count();
    }

    /** {@code @Fenced} without a transaction. */
    @Fenced(JPA)
    public void saveWithoutTransaction(String customer) {
        invoices.save(new Invoice(customer));
    }

    /** The newcomer's variant: the gate's own transaction inside a Spring one. */
    @Transactional
    public void gateWriteInside(String resource, long token, String customer) {
        gate.write(resource, token, tx -> {
            throw new AssertionError("the gate ran the work inside a Spring transaction");
        });
        invoices.save(new Invoice(customer));
    }

    /** Saves, says the check passed, and waits (the old leader paused after its check, holding the mark). */
    @Fenced(PAUSED)
    @Transactional
    public void saveAndPause(String customer, CountDownLatch checked, CountDownLatch resume)
            throws InterruptedException {
        invoices.save(new Invoice(customer));
        checked.countDown();
        if (!resume.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never resumed");
        }
    }

    /** The smallest fenced transaction: one JdbcTemplate insert. */
    @Fenced(MANY)
    @Transactional
    public void insertFenced(String customer) {
        jdbc.update(INSERT, customer);
    }
}
