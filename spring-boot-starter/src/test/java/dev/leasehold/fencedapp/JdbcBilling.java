package dev.leasehold.fencedapp;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import dev.leasehold.spring.LeaseholdFence;
import org.jooq.DSLContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** JdbcTemplate and jOOQ under {@code JdbcTransactionManager}, fenced with {@link LeaseholdFence#check(String)}. */
public class JdbcBilling {

    public static final String JDBC = "sf-lazy-jdbc";
    public static final String JOOQ = "sf-lazy-jooq";

    private final JdbcTemplate jdbc;
    private final DSLContext jooq;
    private final LeaseholdFence fence;

    public JdbcBilling(JdbcTemplate jdbc, DSLContext jooq, LeaseholdFence fence) {
        this.jdbc = jdbc;
        this.jooq = jooq;
        this.fence = fence;
    }

    @Transactional
    public void insertWithJdbcTemplate(String customer) {
        fence.check(JDBC);
        jdbc.update(Billing.INSERT, customer);
    }

    @Transactional
    public void insertWithJooq(String customer) {
        fence.check(JOOQ);
        jooq.insertInto(table(unquotedName("sf_invoice")), field(unquotedName("customer")), field(unquotedName("paid")))
                .values(customer, false)
                .execute();
    }
}
