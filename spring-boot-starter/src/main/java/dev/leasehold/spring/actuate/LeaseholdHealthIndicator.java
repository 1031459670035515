package dev.leasehold.spring.actuate;

import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import dev.leasehold.spring.zookeeper.ZookeeperSession;
import java.time.Duration;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code leasehold} health: UP while the Curator client is connected to ZooKeeper, DOWN otherwise; the details
 * give the session timeout the server negotiated ({@code session.timeoutMs}, beside {@code askedMs} when the starter
 * made the client) and name each role, this instance's participant id, whether it leads, its token, and who leads now.
 *
 * <p>Following is healthy: an instance that does not lead is UP. Reading who leads costs two ZooKeeper reads per
 * role, and only while connected.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LeaseholdHealthIndicator implements HealthIndicator {

    private final CuratorFramework client;
    private final List<FencedLeaderInitiator> initiators;
    private final Duration askedSessionTimeout;

    /**
     * @param client     the client the initiators run on, or {@code null} if there is none
     * @param initiators the initiators to report
     */
    public LeaseholdHealthIndicator(CuratorFramework client, List<FencedLeaderInitiator> initiators) {
        this(client, initiators, null);
    }

    /**
     * @param client              the client the initiators run on, or {@code null} if there is none
     * @param initiators          the initiators to report
     * @param askedSessionTimeout the session timeout the client asked for, shown beside the negotiated one, or
     *                            {@code null} if unknown (a client the application made)
     */
    public LeaseholdHealthIndicator(
            CuratorFramework client, List<FencedLeaderInitiator> initiators, Duration askedSessionTimeout) {
        this.client = client;
        this.initiators = List.copyOf(initiators);
        this.askedSessionTimeout = askedSessionTimeout;
    }

    @Override
    public Health health() {
        boolean connected = ElectionStatus.connected(client);
        Health.Builder health = connected ? Health.up() : Health.down();
        health.withDetail("connected", connected);
        if (client != null) {
            health.withDetail("session", ZookeeperSession.details(client, connected, askedSessionTimeout));
        }
        return health.withDetail("roles", ElectionStatus.roles(initiators, connected))
                .build();
    }
}
