/**
 * Leasehold for Spring Boot, what an application touches: the leader contexts its {@code Candidate} beans receive
 * ({@link dev.leasehold.spring.FencedContext}, {@link dev.leasehold.spring.LeaseContext}), Spring Integration locks
 * with fencing tokens ({@link dev.leasehold.spring.FencedLockRegistry}, {@link dev.leasehold.spring.FencedLock}), the
 * fence inside its own transactions ({@link dev.leasehold.spring.Fenced}, {@link dev.leasehold.spring.LeaseholdFence},
 * {@link dev.leasehold.spring.NotLeaderException}), the {@code leasehold.*}
 * properties (one record per feature), and {@link dev.leasehold.spring.LeaseholdConfigurationException}. Each feature
 * lives in a subpackage with its own auto-configuration.
 */
package dev.leasehold.spring;
