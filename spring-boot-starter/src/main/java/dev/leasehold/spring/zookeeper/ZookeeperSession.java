package dev.leasehold.spring.zookeeper;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;

/**
 * The ZooKeeper session as the server granted it: the server bounds every asked session timeout to 2 to 20 of its
 * ticks ({@code tickTime}, 2,000 ms by default: 4 to 40 s), so Curator's default 60 s becomes 40 s on a stock
 * server, and a leader's failover time follows the negotiated value, not the asked one.
 *
 * <p>Thread-safety: stateless.
 *
 * <p>Not API: public only for the starter's Actuator support.
 */
public final class ZookeeperSession {

    private ZookeeperSession() {}

    /**
     * What the health and info show under {@code session}: {@code timeoutMs} (negotiated, or why it is unknown),
     * {@code askedMs} when the starter made the client, and a {@code note} when the server changed the ask.
     *
     * @param client    the Curator client
     * @param connected whether it is connected now
     * @param asked     the session timeout the starter's client asked for, or {@code null} for the application's client
     * @return the details, in a stable order
     */
    public static Map<String, Object> details(CuratorFramework client, boolean connected, Duration asked) {
        Map<String, Object> session = new LinkedHashMap<>();
        Integer negotiated = connected ? negotiatedMillis(client) : null;
        session.put("timeoutMs", negotiated != null ? (Object) negotiated : "unknown: not connected to ZooKeeper");
        if (asked != null) {
            session.put("askedMs", asked.toMillis());
            if (negotiated != null && negotiated != asked.toMillis()) {
                session.put(
                        "note",
                        "the server bounds the session timeout to 2 to 20 of its ticks (tickTime); failover follows "
                                + negotiated + " ms");
            }
        }
        return session;
    }

    /** One line for the log: "40000 ms (negotiated by the server; asked 60000 ms)", or "60000 ms". */
    static String describe(CuratorFramework client, Duration asked) {
        Integer negotiated = negotiatedMillis(client);
        if (negotiated == null) {
            return "unknown (not connected; asked " + asked.toMillis() + " ms)";
        }
        return negotiated + " ms"
                + (negotiated == asked.toMillis()
                        ? ""
                        : " (negotiated by the server; asked " + asked.toMillis() + " ms)");
    }

    /** The negotiated timeout, or {@code null} when the client has no live session to ask. */
    private static Integer negotiatedMillis(CuratorFramework client) {
        try {
            int timeout = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            return timeout > 0 ? timeout : null;
        } catch (Exception e) {
            return null; // closed or not started: nothing negotiated to show
        }
    }
}
