package dev.leasehold.examples.fencebench;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data repository the JPA rows are saved through. */
public interface EntryRepository extends JpaRepository<Entry, Long> {}
