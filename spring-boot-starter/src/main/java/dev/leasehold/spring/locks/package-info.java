/**
 * Spring Integration locks with fencing tokens: the implementation of {@link dev.leasehold.spring.FencedLockRegistry}
 * (a {@link dev.leasehold.spring.locks.LockTable} of {@link dev.leasehold.spring.locks.RegistryLock}s over a {@link
 * dev.leasehold.spring.locks.LockStore}: {@link dev.leasehold.spring.locks.ZookeeperLockStore} or {@link
 * dev.leasehold.spring.locks.JdbcLockStore}) and its auto-configuration ({@code leasehold.lock.*}). Not API but for
 * the auto-configuration's name: public only for Java's sake; use {@link dev.leasehold.spring.FencedLockRegistry} and
 * {@link dev.leasehold.spring.FencedLock}.
 */
package dev.leasehold.spring.locks;
