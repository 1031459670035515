package dev.leasehold.spring.actuate;

import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LeaderInfo;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * What the health indicator and the info contributor show for each initiator: role, participant id, leading or not,
 * the token, and who leads now (read from ZooKeeper only while the client is connected).
 *
 * <p>Thread-safety: stateless.
 */
final class ElectionStatus {

    private ElectionStatus() {}

    static Map<String, Object> roles(List<FencedLeaderInitiator> initiators, boolean connected) {
        Map<String, Object> roles = new LinkedHashMap<>();
        for (FencedLeaderInitiator initiator : initiators) {
            Map<String, Object> role = new LinkedHashMap<>();
            role.put("participantId", initiator.participantId());
            role.put("electionPath", initiator.electionPath());
            role.put("running", initiator.isRunning());
            Optional<FencingToken> token = initiator.currentToken();
            role.put("leading", token.isPresent());
            token.ifPresent(t -> role.put("token", t.value()));
            role.put("leader", connected ? leader(initiator) : "unknown: not connected to ZooKeeper");
            roles.put(initiator.role(), role);
        }
        return roles;
    }

    static boolean connected(CuratorFramework client) {
        return client != null && client.getZookeeperClient().isConnected();
    }

    private static Object leader(FencedLeaderInitiator initiator) {
        try {
            Optional<LeaderInfo> leader = initiator.currentLeader();
            if (leader.isEmpty()) {
                return "none";
            }
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("participantId", leader.get().participantId());
            info.put("token", leader.get().token().value());
            return info;
        } catch (IllegalStateException e) {
            return "unknown: " + e.getMessage();
        }
    }
}
