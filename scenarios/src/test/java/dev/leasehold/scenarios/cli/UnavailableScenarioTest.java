package dev.leasehold.scenarios.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scenario this machine cannot run (db-failover without Debian's Patroni packages) is skipped with its one-line
 * hint when every scenario runs, and fails the program only when it was asked for by name.
 */
class UnavailableScenarioTest {

    @TempDir
    Path dir;

    private static final Scenario UNAVAILABLE = new Scenario() {
        @Override
        public String name() {
            return "needs-packages";
        }

        @Override
        public String summary() {
            return "a scenario whose packages are missing";
        }

        @Override
        public Optional<String> unavailable() {
            return Optional.of("needs the Debian packages patroni (missing here)");
        }

        @Override
        public List<RunResult> run(Env env) {
            throw new AssertionError("a scenario that cannot run must not be run");
        }
    };

    private String run(boolean named, int expectedExit) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Main.Options options = new Main.Options();
        options.report = dir.resolve("report-" + named + ".html");
        int exit = new Runner(new PrintStream(out, true, StandardCharsets.UTF_8))
                .run(List.of(UNAVAILABLE), options, named);
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isEqualTo(expectedExit);
        return printed;
    }

    @Test
    void everyScenarioSkipsItWithTheHint() {
        assertThat(run(false, 0))
                .contains("needs-packages: skipped: needs the Debian packages patroni (missing here)")
                .doesNotContain("did not hold");
    }

    @Test
    void askedForByNameItFails() {
        assertThat(run(true, 1))
                .contains("needs-packages: skipped: needs the Debian packages patroni (missing here)")
                .contains("did not hold: needs-packages: could not run: needs the Debian packages patroni");
    }
}
