/**
 * A service that fences the writes of its own Spring transactions (JPA, JdbcTemplate, jOOQ), for the starter's tests
 * of {@code @Fenced} and {@code LeaseholdFence}. Outside {@code dev.leasehold.spring} on purpose: the starter's other
 * test applications scan that package for entities and repositories.
 */
package dev.leasehold.fencedapp;
