package dev.leasehold.scenarios.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 26's request goal, on counts (deterministic enough to assert, unlike times): at 1,200 partitions and 10 members
 * a join, a graceful leave and a crash each cost {@code FencedPartitions} at least 10x fewer ZooKeeper requests than
 * the naive Curator way (one {@code LeaderLatch} per partition per member), counted on the wire through a proxy per
 * member, as {@code bench partitions} counts them. Before the rebalance's creates, checks and deletes were batched in
 * multis: 9.4x (join), 4.0x (leave), 8.5x (crash).
 */
class PartitionsRequestsTest {

    private static final String[] CHANGES = {"join", "leave", "crash"};

    @Test
    @Timeout(600)
    void aRebalanceAt1200PartitionsAnd10MembersCostsAtLeastTenTimesFewerRequestsThanALatchPerPartition()
            throws Exception {
        // one server, not the bench's three: what is counted is each client's requests, which a quorum does not change
        try (TestingServer server = new TestingServer()) {
            long start = System.nanoTime();
            PartitionsBench.Comparison comparison = PartitionsBench.compare(server.getConnectString(), 1_200, 10);
            System.out.printf("compared in %.1f s%n", (System.nanoTime() - start) / 1e9);
            for (int i = 0; i < CHANGES.length; i++) {
                PartitionsBench.Cost ours = comparison.ours()[i];
                PartitionsBench.Cost naive = comparison.naive()[i];
                System.out.printf(
                        "%s: naive %d ms, %d requests, %d notifications; ours %d ms, %d requests, %d notifications"
                                + " (%d moved): %.1fx fewer requests%n",
                        CHANGES[i],
                        naive.nanos() / 1_000_000,
                        naive.requests(),
                        naive.notifications(),
                        ours.nanos() / 1_000_000,
                        ours.requests(),
                        ours.notifications(),
                        ours.moved(),
                        comparison.ratio(i));
                assertThat(comparison.ratio(i))
                        .as("%s: naive %d requests, ours %d", CHANGES[i], naive.requests(), ours.requests())
                        .isGreaterThanOrEqualTo(10.0);
            }
        }
    }
}
