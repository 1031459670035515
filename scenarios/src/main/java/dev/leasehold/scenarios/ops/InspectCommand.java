package dev.leasehold.scenarios.ops;

import dev.leasehold.scenarios.Zk;
import dev.leasehold.scenarios.cli.DatabaseOptions;
import dev.leasehold.scenarios.cli.EnvException;
import dev.leasehold.store.StoreConfig;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code inspect}: an election as ZooKeeper holds it, or the fenced store's state, for an operator. Reads only; on
 * ZooKeeper it sets no watch. Exit codes: 0 read, 2 bad usage or an unreachable ZooKeeper or database.
 *
 * <p>Thread-safety: a picocli command, run once on the calling thread.
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description = {
            "Shows an election or the fenced store, reading only.",
            "  inspect --zk CONNECT PATH: the election's participants in queue order (participant, czxid = token,"
                    + " session), who leads, what each follower watches. Sets no watch.",
            "  inspect --jdbc URL [RESOURCE]: the fence marks (or one resource's mark and history), the batch"
                    + " counts with the oldest pending age, slot runs in progress and expired."
        })
public final class InspectCommand implements Callable<Integer> {

    private static final int CONNECT_WAIT_SECONDS = 5;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--zk", paramLabel = "CONNECT", description = "the ZooKeeper ensemble, host:port[,...]")
    String zk;

    @Mixin
    DatabaseOptions database = new DatabaseOptions();

    @Option(
            names = "--prefix",
            defaultValue = StoreConfig.DEFAULT_PREFIX,
            description = "the store's table prefix (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(names = "--json", description = "print one JSON object instead of text")
    boolean json;

    @Parameters(
            paramLabel = "PATH|RESOURCE",
            arity = "0..1",
            description = "with --zk the election's path (required); with --jdbc a resource (optional)")
    String target;

    @Override
    public Integer call() throws Exception {
        if ((zk == null) == (database.jdbc() == null)) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "give --zk CONNECT PATH or --jdbc URL" + " [RESOURCE]");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (zk != null) {
            if (target == null || !target.startsWith("/")) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--zk needs the election's PATH," + " starting with '/'"
                                + (target == null ? "" : ", was '" + target + "'"));
            }
            try (CuratorFramework client = connect(zk)) {
                ElectionSnapshot election = ElectionSnapshot.read(client, target);
                out.print(json ? election.json() + "\n" : election.text());
                if (!json) {
                    out.println("this inspection's session timeout: " + Zk.sessionTimeout(client, SESSION_ASK_MS)
                            + "; participants' sessions are bounded by the same server (see docs/recipes.md)");
                }
            }
        } else {
            StoreConfig config = config();
            StoreSnapshot store = StoreSnapshot.read(StoreAccess.open(database, config), config, target);
            out.print(json ? store.json() + "\n" : store.text());
        }
        out.flush();
        return 0;
    }

    private StoreConfig config() {
        try {
            return StoreConfig.defaults().withTablePrefix(prefix);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--prefix: " + e.getMessage());
        }
    }

    /** The session timeout this command asks for; the server's negotiated value is printed. */
    private static final int SESSION_ASK_MS = 10_000;

    private static CuratorFramework connect(String connect) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(
                connect, SESSION_ASK_MS, CONNECT_WAIT_SECONDS * 1000, new RetryNTimes(3, 200));
        client.start();
        if (!client.blockUntilConnected(CONNECT_WAIT_SECONDS, TimeUnit.SECONDS)) {
            client.close();
            throw new EnvException(
                    "cannot reach ZooKeeper at " + connect + " within " + CONNECT_WAIT_SECONDS + " s", null);
        }
        return client;
    }
}
