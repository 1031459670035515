package dev.leasehold.scenarios.chaos;

import dev.leasehold.scenarios.Zk;
import dev.leasehold.testkit.Ensemble;
import dev.leasehold.testkit.TcpProxy;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * The session timeout the campaign's ensemble grants to a participant's ask ({@link ChaosCampaign#SESSION_MS}): the
 * server bounds every ask to 2 to 20 of its ticks, so an ensemble given with {@code --zk} may grant more than asked,
 * and the nemesis's partitions and pauses must outlast what was granted, not what was asked.
 *
 * @param ms    the negotiated timeout in milliseconds
 * @param label how the program prints it: {@code "2000 ms"}, or {@code "4000 ms (negotiated by the server; asked
 *              2000 ms)"} ({@link Zk#sessionTimeout})
 */
record NegotiatedSession(int ms, String label) {

    /** Without ZooKeeper (a lease election): the ask, as nothing negotiates it. */
    static NegotiatedSession asked() {
        return new NegotiatedSession(ChaosCampaign.SESSION_MS, ChaosCampaign.SESSION_MS + " ms");
    }

    /**
     * Connects once as a participant does (same ask, same client settings) and reads what the server granted.
     *
     * @throws IllegalStateException if the ensemble cannot be reached within 30 s
     */
    static NegotiatedSession of(Ensemble ensemble) throws Exception {
        try (CuratorFramework probe = TcpProxy.clientBuilder(
                        ensemble.connectString().toString(), ChaosCampaign.SESSION_MS)
                .build()) {
            probe.start();
            if (!probe.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("ZooKeeper at " + ensemble.connectString() + " did not answer in 30 s");
            }
            int ms = probe.getZookeeperClient().getZooKeeper().getSessionTimeout();
            return new NegotiatedSession(ms, Zk.sessionTimeout(probe, ChaosCampaign.SESSION_MS));
        }
    }
}
