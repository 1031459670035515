package dev.leasehold.examples.billing;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import java.math.BigDecimal;

/**
 * One customer's invoice for one period. There is no unique constraint on (customer, period), as in the incident: the
 * fence, not the schema, keeps an old leader from billing a customer twice.
 */
@Entity
public class Invoice {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private String customer;

    private String period;

    private BigDecimal amount;

    /** The fencing token of the leader that wrote it: for audit, the fence does not need it. */
    private long token;

    /** For JPA. */
    protected Invoice() {}

    /**
     * An invoice.
     *
     * @param customer the customer's name
     * @param period   the period, {@code yyyy-MM}
     * @param amount   what the customer owes
     * @param token    the writer's fencing token
     */
    public Invoice(String customer, String period, BigDecimal amount, long token) {
        this.customer = customer;
        this.period = period;
        this.amount = amount;
        this.token = token;
    }

    /** @return the key, in insertion order */
    public Long getId() {
        return id;
    }

    /** @return the customer's name */
    public String getCustomer() {
        return customer;
    }

    /** @return the period, {@code yyyy-MM} */
    public String getPeriod() {
        return period;
    }

    /** @return what the customer owes */
    public BigDecimal getAmount() {
        return amount;
    }

    /** @return the writer's fencing token */
    public long getToken() {
        return token;
    }
}
