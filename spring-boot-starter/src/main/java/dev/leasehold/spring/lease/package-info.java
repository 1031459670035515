/**
 * The database lease election backend ({@code leasehold.election.backend=jdbc}, no ZooKeeper):
 * {@link dev.leasehold.spring.lease.LeaseLeaderInitiator}, one per {@code Candidate} bean, and its
 * auto-configuration.
 */
package dev.leasehold.spring.lease;
