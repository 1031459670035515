package dev.leasehold.fencedapp;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One invoice of one customer: the newcomer's entity of issue 43. */
@Entity
@Table(name = "sf_invoice")
public class Invoice {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    private String customer;

    private boolean paid;

    protected Invoice() {}

    public Invoice(String customer) {
        this.customer = customer;
    }

    public Long getId() {
        return id;
    }

    public String getCustomer() {
        return customer;
    }

    public boolean isPaid() {
        return paid;
    }
}
