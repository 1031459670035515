package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.TcpProxy;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No herd: a fourth member's join wakes each old member twice (the members' list, the target), whatever the partition
 * count; an old member's requests do not grow with the partitions it gives away (one multi deletes them all), the
 * newcomer's only with the partitions it had to wait for. Counted on the wire, through a proxy per member, as the
 * latch's herd test counts.
 */
class PartitionsHerdTest extends ZkTestCase {

    static final String PATH = "/herd/partitions";

    @ParameterizedTest(name = "{0} partitions")
    @ValueSource(ints = {12, 120})
    void aJoinWakesEachMemberABoundedNumberOfTimesWhateverThePartitionCount(int partitionCount) throws Exception {
        PartitionRecorder.Holders holders = new PartitionRecorder.Holders();
        List<TcpProxy> proxies = new ArrayList<>();
        List<PartitionRecorder> recorders = new ArrayList<>();
        for (String id : List.of("a", "b", "c", "d")) {
            TcpProxy proxy = closeLater(TcpProxy.to(server.getConnectString()));
            proxies.add(proxy);
            recorders.add(new PartitionRecorder(id, holders));
        }
        List<FencedPartitions> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(start(proxies.get(i), "abc".substring(i, i + 1), partitionCount, recorders.get(i)));
        }
        for (int i = 0; i < 3; i++) {
            recorders.get(i).awaitHeld(partitionCount / 3);
        }
        long[] notificationsBefore = new long[3];
        long[] requestsBefore = new long[3];
        for (int i = 0; i < 3; i++) {
            notificationsBefore[i] = proxies.get(i).watchNotifications();
            requestsBefore[i] = proxies.get(i).requests();
        }

        start(proxies.get(3), "d", partitionCount, recorders.get(3));
        for (PartitionRecorder recorder : recorders) {
            recorder.awaitHeld(partitionCount / 4);
        }
        int moved = partitionCount / 4;
        for (int i = 0; i < 3; i++) {
            long notifications = proxies.get(i).watchNotifications() - notificationsBefore[i];
            long requests = proxies.get(i).requests() - requestsBefore[i];
            assertThat(notifications).as("watch notifications of member %d", i).isLessThanOrEqualTo(2);
            // members' list + target (+ the target's write and a re-read by the member with the smallest id) + ONE
            // multi that deletes every partition it gave away (issue 26: 4 + one delete per partition before)
            assertThat(requests).as("requests of member %d", i).isLessThanOrEqualTo(5);
        }
        // the newcomer: its own node, the members, the target (twice if it read it before it named the newcomer), one
        // multi of creates, one read of their Stats, one read of the partitions' children; if a partition's container
        // parent was reaped meanwhile (the old owner's delete left it empty: every 200 ms in these tests, every minute
        // by default), the multi fails whole and costs a read, a multi of parents and the multi again; per partition
        // whose old owner had not deleted its node yet, an exists watch on it, and at most one read when it goes.
        long newcomerRequests = proxies.get(3).requests();
        assertThat(newcomerRequests).as("requests of the newcomer").isLessThanOrEqualTo(10 + 2L * moved);
        assertThat(proxies.get(3).watchNotifications())
                .as("watch notifications of the newcomer")
                .isLessThanOrEqualTo(2 + moved);
        assertThat(holders.violations).isEmpty();
        members.forEach(FencedPartitions::close);
    }

    FencedPartitions start(TcpProxy proxy, String id, int partitionCount, PartitionRecorder recorder) throws Exception {
        CuratorFramework client = closeLater(Zk.started(TcpProxy.clientBuilder(proxy.connectString(), Zk.SESSION_MS)));
        FencedPartitions partitions = closeLater(new FencedPartitions(client, PATH, id, partitionCount, recorder));
        partitions.start();
        return partitions;
    }
}
