package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.time.Duration;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A short seeded campaign inside mvn verify, on H2 and on PostgreSQL 17. The seed is printed, and named in every
 * failure message, so a failing campaign can be replayed with {@code chaos --seed N}.
 */
@Timeout(240)
class ChaosCampaignTest {

    private static long seed() {
        return Long.getLong("leasehold.chaos.seed", System.nanoTime());
    }

    private static void campaign(DataSource ds, boolean postgres, String label, Duration length) throws Exception {
        long seed = seed();
        System.out.println("ChaosCampaignTest on " + label + ": seed " + seed
                + " (replay: -Dleasehold.chaos.seed=" + seed + ")");
        ChaosCampaign.Summary summary = new ChaosCampaign(new ChaosCampaign.Config(length, seed, 5, ds, postgres,
                label, System.out)).run();
        System.out.println(summary.faultMix());
        System.out.println(summary.line());
        assertThat(summary.result().violations()).as("seed %d: %s", seed, summary.line()).isEmpty();
        assertThat(summary.line()).as("seed %d", seed).doesNotContain("grants=0 ").doesNotContain("faults=0 ")
                .doesNotContain("writes accepted=0 ");
    }

    @Test
    void aShortCampaignOnH2LeavesNoViolation() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:chaos-test;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        campaign(h2, false, "H2", Duration.ofSeconds(25));
    }

    @Test
    void aShortCampaignOnPostgresLeavesNoViolation() throws Exception {
        dev.leasehold.scenarios.NotRoot.require();
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            campaign(postgres.getPostgresDatabase(), true, "PostgreSQL 17", Duration.ofSeconds(30));
        }
    }
}
