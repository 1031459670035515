/**
 * Micrometer meters from {@code leasehold-micrometer} for the initiators of either backend and for the store, and
 * their auto-configuration.
 */
package dev.leasehold.spring.metrics;
