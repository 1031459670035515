package dev.leasehold.examples.billing;

import dev.leasehold.spring.Fenced;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Bills one customer for one period, in one transaction. */
@Service
public class BillingService {

    private final InvoiceRepository invoices;

    BillingService(InvoiceRepository invoices) {
        this.invoices = invoices;
    }

    /**
     * Writes the customer's invoice for the period. {@code @Fenced("billing")} checks this instance's token inside the
     * transaction, before the body, and holds the fence's lock until the commit (JPA's flush included): the invoice is
     * kept only if no newer leader took over first.
     *
     * @param customer the customer
     * @param period   the period, {@code yyyy-MM}
     * @param token    the token the run was started with, recorded on the invoice
     * @throws dev.leasehold.spring.NotLeaderException   if this instance no longer leads (nothing was written)
     * @throws dev.leasehold.store.StaleTokenException if a newer leader took over (the transaction rolls back)
     */
    @Fenced("billing")
    @Transactional
    public void bill(Customer customer, String period, long token) {
        invoices.save(new Invoice(customer.getName(), period, customer.getMonthlyFee(), token));
    }
}
