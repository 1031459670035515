/**
 * Actuator support: the {@code leasehold} health indicator (off with {@code management.health.leasehold.enabled=false})
 * and info contributor, and their auto-configuration.
 */
package dev.leasehold.spring.actuate;
