package dev.leasehold.scenarios.chaos;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * The ZooKeeper a campaign runs against: a 3-server TestingCluster it starts (and may kill servers of), or an
 * ensemble it was given (host:port[,...][/chroot], never harmed). Not thread-safe: the campaign's thread uses it.
 */
final class ChaosEnsemble implements Closeable {

    /** One server's address, as participants' proxies forward to it. */
    record Server(String host, int port) {}

    private final TestingCluster cluster;
    private final List<Server> servers;
    private final String chroot;

    private ChaosEnsemble(TestingCluster cluster, List<Server> servers, String chroot) {
        this.cluster = cluster;
        this.servers = List.copyOf(servers);
        this.chroot = chroot;
    }

    /** Starts a 3-server TestingCluster with this tick (sessions of 2 to 20 ticks). */
    static ChaosEnsemble startOwn(int tickMs) throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "*"); // srvr tells which server is the quorum leader
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(null, -1, -1, -1, true, id, tickMs, 0));
        }
        TestingCluster cluster = new TestingCluster(specs);
        cluster.start();
        List<Server> servers = new ArrayList<>();
        for (InstanceSpec spec : cluster.getInstances()) {
            servers.add(new Server(spec.getHostname(), spec.getPort()));
        }
        return new ChaosEnsemble(cluster, servers, "");
    }

    /** A given ensemble: {@code host:port[,host:port...][/chroot]}. */
    static ChaosEnsemble given(String connect) {
        String hosts = connect;
        String chroot = "";
        int slash = hosts.indexOf('/');
        if (slash >= 0) {
            chroot = hosts.substring(slash);
            hosts = hosts.substring(0, slash);
        }
        List<Server> servers = new ArrayList<>();
        for (String server : hosts.split(",")) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0 || !server.substring(colon + 1).matches("\\d{1,5}")) {
                throw new IllegalArgumentException("--zk: expected host:port[,host:port...][/chroot], got '"
                        + connect + "'");
            }
            servers.add(new Server(server.substring(0, colon).trim(), Integer.parseInt(server.substring(colon + 1))));
        }
        return new ChaosEnsemble(null, servers, chroot);
    }

    /** Whether the campaign started these servers, and so may kill them. */
    boolean owned() {
        return cluster != null;
    }

    List<Server> servers() {
        return servers;
    }

    /** The chroot to append to a connect string ("" for none). */
    String chroot() {
        return chroot;
    }

    List<InstanceSpec> instances() {
        return List.copyOf(cluster().getInstances());
    }

    void kill(InstanceSpec spec) throws Exception {
        cluster().killServer(spec);
    }

    void restart(InstanceSpec spec) throws Exception {
        cluster().restartServer(spec);
    }

    /** The server whose {@code srvr} answer says {@code Mode: leader}, or null when none answers so. */
    InstanceSpec quorumLeader() {
        for (InstanceSpec spec : cluster().getInstances()) {
            if (mode(spec).equals("leader")) {
                return spec;
            }
        }
        return null;
    }

    boolean isQuorumLeader(InstanceSpec spec) {
        return mode(spec).equals("leader");
    }

    /** Restarts every server that does not answer. */
    void restartTheDown() throws Exception {
        if (cluster == null) {
            return;
        }
        for (InstanceSpec spec : cluster.getInstances()) {
            if (mode(spec).equals("down")) {
                cluster.restartServer(spec);
            }
        }
    }

    private TestingCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("the campaign did not start this ensemble: its servers are not touched");
        }
        return cluster;
    }

    private static String mode(InstanceSpec spec) {
        try {
            String answer = FourLetterWordMain.send4LetterWord(spec.getHostname(), spec.getPort(), "srvr", false,
                    1_000);
            return answer.lines().filter(l -> l.startsWith("Mode:")).map(l -> l.substring(5).trim()).findFirst()
                    .orElse("unknown");
        } catch (Exception e) {
            return "down";
        }
    }

    @Override
    public void close() throws IOException {
        if (cluster != null) {
            cluster.close();
        }
    }
}
