package dev.leasehold.fencedapp;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/** Spring Data JPA: {@code save} (flushed at commit) and a JPQL bulk update. */
public interface InvoiceRepository extends JpaRepository<Invoice, Long> {

    @Modifying
    @Query("update Invoice i set i.paid = true where i.customer = :customer")
    int markPaid(@Param("customer") String customer);
}
