package dev.leasehold.scenarios.cli;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.report.HtmlReport;
import dev.leasehold.scenarios.report.Skipped;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs scenarios in one environment, prints the verdicts, writes the report and decides the exit code. */
final class Runner {

    static final Path DEFAULT_REPORT = Path.of("leasehold-report.html");

    private final PrintStream out;

    Runner(PrintStream out) {
        this.out = out;
    }

    /**
     * @param named whether the scenarios were asked for by name: then one that cannot run here fails the program;
     *              else (every scenario) it is skipped with its hint
     */
    int run(List<Scenario> scenarios, Main.Options options, boolean named) {
        long started = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        List<String> crashed = new ArrayList<>();
        List<Skipped> skipped = new ArrayList<>();
        try (Env env = Env.start(Env.Settings.embedded(out)
                .withZk(options.zk)
                .withJdbc(options.database.jdbc(), options.database.user(), options.database.password()))) {
            out.println("Leasehold scenarios on " + env.describe());
            for (Scenario scenario : scenarios) {
                out.println();
                out.println("=== " + scenario.name() + ": " + scenario.summary());
                Optional<String> missing = scenario.unavailable();
                if (missing.isPresent()) {
                    env.skip(scenario.name(), Skipped.Side.BOTH, missing.get());
                    if (named) {
                        crashed.add(scenario.name() + ": could not run: " + missing.get());
                    }
                    continue;
                }
                try {
                    results.addAll(scenario.run(env));
                } catch (EnvException e) {
                    throw e;
                } catch (Exception e) {
                    crashed.add(scenario.name() + ": " + e);
                    out.println("  scenario " + scenario.name() + " failed: " + e);
                    if (options.verbose) {
                        e.printStackTrace(out);
                    }
                }
            }
            skipped.addAll(env.skipped());
        }
        Path report = options.report == null ? DEFAULT_REPORT : options.report;
        try {
            HtmlReport.write(report, results, skipped);
        } catch (IOException e) {
            throw new EnvException("could not write the report to " + report + ": " + e.getMessage(), e);
        }

        out.println();
        out.println("=== verdicts");
        List<String> failed = new ArrayList<>(crashed);
        for (RunResult result : results) {
            out.printf(
                    "  %s %s / %s: %s%n",
                    result.asExpected() ? "ok  " : "FAIL",
                    result.scenario(),
                    result.title(),
                    String.join("; ", result.verdicts()));
            if (!result.asExpected()) {
                failed.add(result.scenario() + " / " + result.title() + ": expected " + result.expectation());
            }
        }
        out.printf("report: %s%n", report.toAbsolutePath());
        out.printf("%d run(s) in %.1f s%n", results.size(), (System.nanoTime() - started) / 1e9);
        if (failed.isEmpty()) {
            out.println("every broken run reproduced its incident and every Leasehold run held");
            return 0;
        }
        for (String failure : failed) {
            out.println("did not hold: " + failure);
        }
        return 1;
    }
}
