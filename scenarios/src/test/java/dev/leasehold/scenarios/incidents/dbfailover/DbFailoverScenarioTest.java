package dev.leasehold.scenarios.incidents.dbfailover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.cli.Program;
import dev.leasehold.testkit.WithPatroni;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The db-failover scenario on real Patroni clusters (issue 28): asynchronous replication loses B's advance in the
 * failover and A's stale write passes; synchronous replication keeps it and A's write, on a fresh connection to the
 * promoted standby, is refused there by the fence ({@code StaleTokenException}), not by a database error; the program
 * exits 0 only then, and the report draws the failover.
 */
@WithPatroni
@Timeout(600)
class DbFailoverScenarioTest {

    @TempDir
    Path dir;

    @Test
    void anAsynchronousFailoverLetsAStaleWriteThroughAndASynchronousOneDoesNot() throws Exception {
        Path report = dir.resolve("db-failover.html");
        Program program = Program.run("run", "db-failover", "--report", report.toString());

        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out())
                .as(program.all())
                .containsPattern("verdict: stale write accepted after failover: A's write with token 33 accepted; B had"
                        + " advanced to 34; the mark was 34 before the failover and 33 after it")
                .containsPattern("verdict: no stale write after failover: A's write with token 33 refused by the fence"
                        + " on the promoted standby \\(StaleTokenException, highest 34\\)(; | after [^;]*; )B had advanced"
                        + " to 34; the mark was 34 before the failover and 34 after it")
                // the fence, not the database, refused it, on the promoted standby: a timeline line says so
                .containsPattern("refused by the fence on pg\\d, the promoted standby: StaleTokenException \\(highest"
                        + " 34\\)")
                .contains("the store's durability check said: ASYNCHRONOUS (at risk")
                .contains("the store's durability check said: SYNCHRONOUS")
                .contains("every broken run reproduced its incident and every Leasehold run held");
        assertThat(Files.readString(report)).contains("failover: pg");
    }
}
