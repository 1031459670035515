package dev.leasehold.fencedapp;

import dev.leasehold.spring.Fenced;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** A {@code REQUIRES_NEW} transaction, fenced on a resource of its own. */
public class InnerBilling {

    private final JdbcTemplate jdbc;

    public InnerBilling(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @Fenced(Billing.INNER)
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void insert(String customer) {
        jdbc.update(Billing.INSERT, customer);
    }
}
