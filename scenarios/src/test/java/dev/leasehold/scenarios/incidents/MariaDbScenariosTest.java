package dev.leasehold.scenarios.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.scenarios.cli.Program;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * One scenario against a real MariaDB server through {@code --jdbc}: the server whose JDBC URL (with credentials) is
 * in LEASEHOLD_TEST_MARIADB_URL; skipped without it, with one line that says how to run it. The short campaign on
 * MariaDB is {@code ChaosCampaignTest.aShortCampaignOnMariaDbLeavesNoViolation}, side by side with the others.
 */
@Timeout(180)
@EnabledIfEnvironmentVariable(
        named = "LEASEHOLD_TEST_MARIADB_URL",
        matches = ".*\\S.*",
        disabledReason = "MariaDB tests skipped: start a server with '.ci/mariadb start /tmp/mdb' and run with"
                + " LEASEHOLD_TEST_MARIADB_URL=<the URL it prints>")
class MariaDbScenariosTest {

    private String url;

    @BeforeEach
    void mariaDb() {
        url = System.getenv("LEASEHOLD_TEST_MARIADB_URL");
    }

    @Test
    void theStaleLeaderScenarioHoldsOnMariaDb() {
        Program program = Program.run("run", "stale-leader", "--jdbc", url);
        assertThat(program.exitCode()).as(program.all()).isZero();
        assertThat(program.out())
                .as(program.all())
                .contains("verdict: customers charged exactly once: c1, c2, c3, c4, c5, c6")
                .contains("every broken run reproduced its incident and every Leasehold run held");
    }
}
