package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FailoverDurability.Replication;
import dev.leasehold.testkit.PatroniCluster;
import dev.leasehold.testkit.PatroniConfig;
import dev.leasehold.testkit.WithPatroni;
import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store tells you: on a real Patroni cluster (PostgreSQL 15, a primary and a streaming standby), the durability
 * check says ASYNCHRONOUS (at risk) while replication is asynchronous and SYNCHRONOUS once Patroni's synchronous
 * mode is on. One cluster for the class, switched between the modes through Patroni's REST API.
 */
@WithPatroni
class PatroniDurabilityTest {

    @TempDir
    static Path dir;

    private static TestingServer zookeeper;
    private static PatroniCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        zookeeper = new TestingServer();
        cluster = PatroniCluster.start(PatroniConfig.of(zookeeper.getConnectString(), dir));
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        zookeeper.close();
    }

    @Test
    void anAsynchronousStandbyIsReportedAsAFailoverRiskAndASynchronousOneIsNot() {
        DataSource ds = cluster.dataSource();
        FencedSchema.install(ds);
        cluster.awaitStandbys(Duration.ofSeconds(60)); // a standby that restarted after the bootstrap streams again

        FailoverDurability asynchronous = FencedSchema.verify(ds);
        System.out.println("asynchronous cluster: " + asynchronous);
        assertThat(asynchronous.replication()).isEqualTo(Replication.ASYNCHRONOUS);
        assertThat(asynchronous.atRisk()).isTrue();
        assertThat(asynchronous.reason()).contains("1 standby streams", "synchronous_standby_names is empty");
        assertThat(asynchronous.advice()).contains("synchronous_mode: true", "synchronous_commit");

        cluster.setSynchronous(true, Duration.ofSeconds(60));
        FailoverDurability synchronous = FencedSchema.durability(ds);
        System.out.println("synchronous cluster: " + synchronous);
        assertThat(synchronous.replication()).isEqualTo(Replication.SYNCHRONOUS);
        assertThat(synchronous.atRisk()).isFalse();
        assertThat(synchronous.reason()).contains("synchronous_commit = on", "1 synchronously");
        assertThat(synchronous.advice()).isEmpty();
    }
}
