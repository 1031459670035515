package dev.leasehold.spring.actuate;

import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.ZookeeperSession;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds {@code leasehold} to the {@code info} endpoint: connected or not, the session timeout the server negotiated
 * ({@code session.timeoutMs}, beside {@code askedMs} when the starter made the client), and per role this instance's participant id,
 * whether it leads, its token, and who leads now.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LeaseholdInfoContributor implements InfoContributor {

    private final CuratorFramework client;
    private final List<FencedLeaderInitiator> initiators;
    private final Duration askedSessionTimeout;

    /**
     * @param client     the client the initiators run on, or {@code null} if there is none
     * @param initiators the initiators to report
     */
    public LeaseholdInfoContributor(CuratorFramework client, List<FencedLeaderInitiator> initiators) {
        this(client, initiators, null);
    }

    /**
     * @param client              the client the initiators run on, or {@code null} if there is none
     * @param initiators          the initiators to report
     * @param askedSessionTimeout the session timeout the client asked for, shown beside the negotiated one, or
     *                            {@code null} if unknown (a client the application made)
     */
    public LeaseholdInfoContributor(
            CuratorFramework client, List<FencedLeaderInitiator> initiators, Duration askedSessionTimeout) {
        this.client = client;
        this.initiators = List.copyOf(initiators);
        this.askedSessionTimeout = askedSessionTimeout;
    }

    @Override
    public void contribute(Info.Builder builder) {
        boolean connected = ElectionStatus.connected(client);
        Map<String, Object> leasehold = new LinkedHashMap<>();
        leasehold.put("connected", connected);
        if (client != null) {
            leasehold.put("session", ZookeeperSession.details(client, connected, askedSessionTimeout));
        }
        leasehold.put("roles", ElectionStatus.roles(initiators, connected));
        builder.withDetail("leasehold", leasehold);
    }
}
