package dev.leasehold.recipes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * A crafted {@code assignment} node written by someone else (issue 42, item 3). On main the 34-byte node of the review
 * threw OutOfMemoryError in every member's step (not caught, no retry: the members stopped moving), and an owner index
 * equal to the member count named the index line as a member. Now the member with the smallest id rewrites it and the
 * group ends up balanced again.
 */
class PartitionsMalformedTargetTest extends ZkTestCase {

    static final String PATH = "/crafted/partitions";

    final PartitionRecorder.Holders holders = new PartitionRecorder.Holders();

    record Member(FencedPartitions partitions, PartitionRecorder recorder) {}

    Member member(String id) throws Exception {
        CuratorFramework client = closeLater(Zk.client(server.getConnectString()));
        PartitionRecorder recorder = new PartitionRecorder(id, holders);
        FencedPartitions partitions = closeLater(new FencedPartitions(client, PATH, id, 6, recorder));
        partitions.start();
        return new Member(partitions, recorder);
    }

    @Test
    void craftedTargetsAreRewrittenAndTheMembersEndUpBalanced() throws Exception {
        Member a = member("a");
        Member b = member("b");
        awaitBalanced(a, b);
        List<String> crafted = List.of(
                "leasehold-partitions 1 2147483647\n0\n\n", // too large
                "leasehold-partitions 1 -6\n0\n\n", // negative
                "leasehold-partitions 1 6\n1\nb\n0 0 0 0 0 1\n", // index out of range: the index line as an id
                "leasehold-partitions 1 6\n2\na\nb\n0 0 0", // truncated
                "leasehold-partitions 1 5\n1\nb\n0 0 0 0 0\n"); // another partition count
        for (String data : crafted) {
            awaitRewritten(write(data.getBytes(StandardCharsets.UTF_8)));
            awaitBalanced(a, b);
        }
        byte[] notUtf8 = "leasehold-partitions 1 6\n1\nbX\n0 0 0 0 0 0\n".getBytes(StandardCharsets.UTF_8);
        notUtf8[new String(notUtf8, StandardCharsets.UTF_8).indexOf('X')] = (byte) 0xC3; // a lead byte, then '\n'
        awaitRewritten(write(notUtf8));
        awaitBalanced(a, b);
        // a member that starts while the node is malformed is not refused: the writer rewrites it
        byte[] tooLarge = write("leasehold-partitions 1 2147483647\n0\n\n".getBytes(StandardCharsets.UTF_8));
        Member c = member("c");
        awaitRewritten(tooLarge);
        for (Member m : List.of(a, b, c)) {
            m.recorder().await("two of six", r -> r.held().size() == 2);
        }
        assertThat(a.partitions().currentAssignment()).hasSize(6);
        assertThat(holders.violations).isEmpty();
    }

    private byte[] write(byte[] data) throws Exception {
        observer.setData().forPath(PATH + "/assignment", data);
        return data;
    }

    /** Waits until the node no longer holds {@code crafted} and decodes as a target of 6 (watch events, no polling). */
    private void awaitRewritten(byte[] crafted) throws Exception {
        long deadline = System.nanoTime() + Zk.WAIT.toNanos();
        while (true) {
            java.util.concurrent.CountDownLatch changed = new java.util.concurrent.CountDownLatch(1);
            byte[] data = observer.getData()
                    .usingWatcher((org.apache.zookeeper.Watcher) e -> changed.countDown())
                    .forPath(PATH + "/assignment");
            if (!java.util.Arrays.equals(data, crafted)) {
                assertThat(PartitionAssignment.decode(data).partitionCount()).isEqualTo(6);
                return;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !changed.await(left, java.util.concurrent.TimeUnit.NANOSECONDS)) {
                throw new AssertionError("the target was not rewritten within " + Zk.WAIT);
            }
        }
    }

    private static void awaitBalanced(Member a, Member b) throws InterruptedException {
        for (Member m : List.of(a, b)) {
            m.recorder().await("three of six", r -> r.held().size() == 3);
        }
    }
}
