package dev.leasehold.examples.billing;

import org.springframework.data.jpa.repository.JpaRepository;

/** The invoices. */
public interface InvoiceRepository extends JpaRepository<Invoice, Long> {}
