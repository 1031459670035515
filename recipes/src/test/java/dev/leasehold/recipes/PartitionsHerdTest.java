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
 * count; requests grow with the partitions that move, not with the partition count. Counted on the wire, through a
 * proxy per member, as the latch's herd test counts.
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
            int gave = partitionCount / 3 - partitionCount / 4;
            assertThat(notifications).as("watch notifications of member %d", i).isLessThanOrEqualTo(2);
            // members' list + target (+ the target's write and re-read by the member with the smallest id)
            // + one delete per partition given away
            assertThat(requests).as("requests of member %d", i).isLessThanOrEqualTo(4 + gave);
        }
        // the newcomer: its own node, the members, the target; per partition taken a create, a look at the
        // partition's children and a watch on the node below its own, then one more look when that node goes. When
        // the old owner's delete left the partition empty and ZooKeeper reaped its container parent (every 200 ms
        // in these tests, every minute by default), Curator's create also re-creates the parent and, as a protected
        // create that failed, looks for its node before it creates again: up to 7 a partition.
        long newcomerRequests = proxies.get(3).requests();
        assertThat(newcomerRequests).as("requests of the newcomer").isLessThanOrEqualTo(6 + 7L * moved);
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
