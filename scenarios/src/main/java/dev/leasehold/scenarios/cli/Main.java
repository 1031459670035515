package dev.leasehold.scenarios.cli;

import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.bench.Bench;
import dev.leasehold.scenarios.incidents.Scenarios;
import dev.leasehold.scenarios.ops.InspectCommand;
import dev.leasehold.scenarios.ops.RebaseCommand;
import dev.leasehold.scenarios.ops.SchemaCommand;
import dev.leasehold.testkit.LocalH2;
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
@Command(
        name = "leasehold-scenarios",
        mixinStandardHelpOptions = true,
        versionProvider = ProgramVersion.class,
        description = "Replays the incidents as they happened and with Leasehold, and draws their timelines"
                + " (without --jdbc: H2 in memory).",
        footer = {
            "",
            "With no command, runs every scenario (as 'run' with no names), with the options above.",
            "Exit codes: 0 all held, 1 something did not hold, 2 bad usage or an unreachable ZooKeeper or database."
        },
        subcommands = {
            Main.Run.class,
            Main.ListScenarios.class,
            Main.BenchCommand.class,
            ChaosCommand.class,
            InspectCommand.class,
            RebaseCommand.class,
            SchemaCommand.class
        })
public final class Main implements Callable<Integer> {

    /** Options shared by the top command, {@code run} and {@code bench}. */
    static final class Options {
        @Option(
                names = "--zk",
                paramLabel = "CONNECT_STRING",
                description = "a real ZooKeeper ensemble (default: embedded)")
        String zk;

        /** Without {@code --jdbc}: H2 in memory. */
        @Mixin
        DatabaseOptions database = new DatabaseOptions();

        @Option(
                names = "--report",
                paramLabel = "FILE.html",
                description = {
                    "where to write the HTML report of the scenarios",
                    "(default: ./leasehold-report.html; bench writes none and refuses it)"
                })
        Path report;

        @Option(names = "--verbose", description = "print stack traces")
        boolean verbose;

        Options merge(Options parent) {
            Options merged = new Options();
            merged.zk = zk != null ? zk : parent.zk;
            merged.database = database.orElse(parent.database);
            merged.report = report != null ? report : parent.report;
            merged.verbose = verbose || parent.verbose;
            return merged;
        }
    }

    @Mixin
    Options options = new Options();

    @Spec
    CommandLine.Model.CommandSpec spec;

    final PrintStream out;

    Main(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        return new Runner(out).run(Scenarios.all(), options, false);
    }

    @Command(
            name = "run",
            mixinStandardHelpOptions = true,
            description = "Runs the named scenarios (all if none; without --jdbc on H2 in memory).")
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
                selected.add(Scenarios.byName(name)
                        .orElseThrow(() -> new CommandLine.ParameterException(
                                spec.commandLine(), "unknown scenario '" + name + "'; known: " + Scenarios.names())));
            }
            return new Runner(parent.out)
                    .run(
                            selected.isEmpty() ? Scenarios.all() : selected,
                            options.merge(parent.options),
                            !selected.isEmpty());
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

    @Command(
            name = "bench",
            mixinStandardHelpOptions = true,
            description = "Measures what fencing costs, side by side with plain Curator and plain JDBC: "
                    + "handoff, failover, herd, fenced-write, claims, slots, claim-backlog, partitions, shedlock, locks (all"
                    + " if none named). The database rows run on H2 and an embedded PostgreSQL 17, or on H2 and the --jdbc"
                    + " database.")
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
                if (!Bench.NAMES.contains(name)) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(),
                            "unknown benchmark '" + name + "'; known: " + String.join(", ", Bench.NAMES));
                }
            }
            Options merged = options.merge(parent.options);
            if (merged.report != null) {
                // --report comes with the options bench shares with run; a bench has no HTML report to write
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "bench writes no HTML report (--report " + merged.report + "); --out FILE.md writes its table");
            }
            List<String> selected = names.isEmpty() ? Bench.NAMES : names;
            String command = "java -jar scenarios/target/leasehold-scenarios.jar bench" + (quick ? " --quick" : "")
                    + (names.isEmpty() ? "" : " " + String.join(" ", names));
            try (Env env = Env.start(Env.Settings.embedded(parent.out).withZk(merged.zk))) {
                String report = new Bench(parent.out)
                        .run(
                                env,
                                selected,
                                quick,
                                merged.database.jdbc(),
                                merged.database.user(),
                                merged.database.password(),
                                command);
                parent.out.println();
                parent.out.println(report);
                if (outFile != null) {
                    Bench.write(outFile, report);
                    parent.out.println("written to " + outFile.toAbsolutePath());
                }
            }
            return 0;
        }
    }

    /**
     * Runs the program with {@code args}, printing to {@code out} and {@code err} with every credential masked
     * ({@link RedactingStream}); returns the exit code.
     */
    public static int execute(String[] args, PrintStream plainOut, PrintStream plainErr) {
        PrintStream out = RedactingStream.over(plainOut);
        PrintStream err = RedactingStream.over(plainErr);
        try {
            return run(args, out, err);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static int run(String[] args, PrintStream out, PrintStream err) {
        Main main = new Main(out);
        CommandLine cli = new CommandLine(main);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setParameterExceptionHandler((ex, arguments) -> {
            err.println("error: " + ex.getMessage() + " (see --help)");
            return CommandLine.ExitCode.USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            boolean verbose = main.options.verbose
                    || parseResult.hasMatchedOption("--verbose")
                    || (parseResult.subcommand() != null
                            && parseResult.subcommand().hasMatchedOption("--verbose"));
            err.println("error: " + ex.getMessage());
            if (verbose) {
                ex.printStackTrace(err);
            }
            return ex instanceof EnvException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        });
        return cli.execute(args);
    }

    public static void main(String[] args) {
        // everything this JVM prints, the libraries' log lines included, is masked: set before anything logs
        System.setOut(RedactingStream.over(System.out));
        System.setErr(RedactingStream.over(System.err));
        LocalH2.bindToLoopback(); // before H2 reads its system properties
        System.exit(run(args, System.out, System.err));
    }
}
