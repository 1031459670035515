/**
 * A fenced ShedLock {@code LockProvider} for applications that use ShedLock ({@code @EnableSchedulerLock}) and bring
 * {@code leasehold-shedlock}: its auto-configuration, chosen by {@code leasehold.shedlock.*}.
 */
package dev.leasehold.spring.shedlock;
