/**
 * The fenced store's beans ({@code FenceGate}, {@code BatchClaims}, {@code SlotRuns}) on the application's
 * {@code DataSource}, from {@code leasehold.store.*}: the auto-configuration only.
 */
package dev.leasehold.spring.store;
