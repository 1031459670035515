package dev.leasehold.examples.billing;

import java.util.List;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.repository.query.Param;

/** The customers. */
public interface CustomerRepository extends JpaRepository<Customer, String> {

    /**
     * The customers with no invoice for {@code period} yet, by name.
     *
     * @param period the period, {@code yyyy-MM}
     * @return the customers still to bill
     */
    @Query("select c from Customer c where not exists"
            + " (select i from Invoice i where i.customer = c.name and i.period = :period) order by c.name")
    List<Customer> findUnbilled(@Param("period") String period);
}
