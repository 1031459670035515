/**
 * The example a team copies: a Spring Boot + Spring Data JPA billing service on PostgreSQL whose leader-only run bills
 * each customer in a {@code @Fenced @Transactional} method, on ZooKeeper or on the database lease. See README.md.
 */
package dev.leasehold.examples.billing;
