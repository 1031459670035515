/**
 * The ZooKeeper election backend (the default): {@link dev.leasehold.spring.zookeeper.FencedLeaderInitiator}, one per
 * {@code Candidate} bean, the Curator client from {@code leasehold.zookeeper.*}, readiness from its connection, and
 * their auto-configuration.
 */
package dev.leasehold.spring.zookeeper;
