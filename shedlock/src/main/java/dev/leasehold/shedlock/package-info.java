/**
 * ShedLock with fencing tokens: drop-in ShedLock {@code LockProvider}s whose locks carry a token ({@link
 * dev.leasehold.shedlock.FencedSimpleLock}), on the database the work already uses ({@link
 * dev.leasehold.shedlock.JdbcFencedLockProvider}) or on ZooKeeper ({@link
 * dev.leasehold.shedlock.ZookeeperFencedLockProvider}), and the token of the lock a task holds ({@link
 * dev.leasehold.shedlock.FencedLocks}), for a {@link dev.leasehold.store.FenceGate} in front of what the task writes.
 */
package dev.leasehold.shedlock;
