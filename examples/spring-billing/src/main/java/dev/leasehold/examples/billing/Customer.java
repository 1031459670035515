package dev.leasehold.examples.billing;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import java.math.BigDecimal;

/** A customer and what it pays a month. */
@Entity
public class Customer {

    @Id
    private String name;

    private BigDecimal monthlyFee;

    /** For JPA. */
    protected Customer() {}

    /**
     * A customer.
     *
     * @param name       its name, the key
     * @param monthlyFee what it pays a month
     */
    public Customer(String name, BigDecimal monthlyFee) {
        this.name = name;
        this.monthlyFee = monthlyFee;
    }

    /** @return the customer's name */
    public String getName() {
        return name;
    }

    /** @return what it pays a month */
    public BigDecimal getMonthlyFee() {
        return monthlyFee;
    }
}
