package dev.leasehold.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.recipes.FencedLeaderLatch;
import dev.leasehold.recipes.FencedLeaderListener;
import dev.leasehold.recipes.FencedPartitionListener;
import dev.leasehold.recipes.FencedPartitions;
import dev.leasehold.recipes.FencingToken;
import dev.leasehold.recipes.LossCause;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.store.claims.BatchClaim;
import dev.leasehold.store.claims.BatchClaims;
import dev.leasehold.store.outbox.IdempotencyKey;
import dev.leasehold.store.outbox.Outbox;
import dev.leasehold.store.outbox.OutboxIntent;
import dev.leasehold.store.outbox.OutboxRelay;
import dev.leasehold.store.outbox.RelayConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.TestingServer;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 27: the shipped alert rules ({@code ops/prometheus/leasehold-alerts.yml}) and dashboard ({@code
 * ops/grafana/leasehold-dashboard.json}) use only series that Micrometer's Prometheus registry really exports. The
 * registry is fed by real elections on a TestingServer (one leader stalls past its progress deadline and another
 * takes over), a real partition group and a real fenced store on H2 (a stale write refused, a claim lost on finish, an outbox intent given
 * up); every selector in the files' expressions, with its equality matchers, must match a sample of the scrape.
 */
@Timeout(120)
class AlertSeriesTest {

    private static final Path OPS = Path.of("..", "ops").toAbsolutePath().normalize();
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static final FencedPartitionListener IGNORE = new FencedPartitionListener() {
        @Override
        public void acquired(int partition, FencingToken token) {}

        @Override
        public void lost(int partition, FencingToken token, LossCause cause) {}
    };

    private static String scrape;
    private static FencingToken stalledToken;
    private static FencingToken leaderToken;

    @BeforeAll
    static void feedARegistryWithRealEventsAndScrapeIt() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (TestingServer zk = new TestingServer();
                CuratorFramework clientA = client(zk);
                CuratorFramework clientB = client(zk);
                FencedLeaderLatch a = new FencedLeaderLatch(clientA, "/billing", "a");
                FencedLeaderLatch b = new FencedLeaderLatch(clientB, "/billing", "b");
                FencedPartitions group = new FencedPartitions(clientB, "/billing/partitions", "b", 2, IGNORE)) {
            a.setProgressDeadline(Duration.ofMillis(300)); // a's work never calls progress(): it stalls
            ElectionMeters.bind(registry, a);
            ElectionMeters.bind(registry, b);
            BlockingQueue<LossCause> lossesA = new LinkedBlockingQueue<>();
            a.addListener(
                    new FencedLeaderListener() { // after the meters: told once they counted
                        @Override
                        public void leadershipAcquired(FencingToken token) {}

                        @Override
                        public void leadershipLost(FencingToken token, LossCause cause) {
                            lossesA.add(cause);
                        }
                    });
            a.start();
            assertThat(a.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            stalledToken = a.currentToken().orElseThrow();
            b.start();
            assertThat(lossesA.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(LossCause.STALLED);
            assertThat(b.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            leaderToken = b.currentToken().orElseThrow();
            Semaphore acquired = new Semaphore(0);
            PartitionMeters.bind(registry, group);
            group.addListener(
                    new FencedPartitionListener() { // after the meters: told once they counted
                        @Override
                        public void acquired(int partition, FencingToken token) {
                            acquired.release();
                        }

                        @Override
                        public void lost(int partition, FencingToken token, LossCause cause) {}
                    });
            group.start();
            assertThat(acquired.tryAcquire(2, WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
            feedTheStore(registry);
            scrape = registry.scrape();
        }
    }

    private static void feedTheStore(PrometheusMeterRegistry registry) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:alert-series-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        StoreConfig config = new StoreMeters(registry).on(StoreConfig.defaults());
        FencedSchema.install(ds, config);
        FenceGate gate = new FenceGate(ds, config);
        gate.advance("billing", leaderToken.value()); // the new leader fences first
        assertThatThrownBy(() -> gate.write("billing", stalledToken.value(), tx -> {}))
                .isInstanceOf(StaleTokenException.class); // the stuck leader wakes and writes: refused

        BatchClaims claims = new BatchClaims(ds, config);
        BatchMeters batches = new BatchMeters(registry, claims);
        claims.enqueue("b1", "payload");
        claims.enqueue("b2", "payload");
        BatchClaim first = claims.claimNext("w1", Duration.ofMinutes(5)).orElseThrow();
        assertThat(claims.finish(first, "ok")).isTrue();
        assertThat(claims.finish(first, "again")).isFalse(); // lost on finish
        batches.refresh();

        Outbox outbox = new Outbox(ds, config);
        outbox.record(
                "billing",
                leaderToken.value(),
                OutboxIntent.of(IdempotencyKey.of("invoice", "c-1", "2026-11"), "accounting", "{}"));
        OutboxRelay relay =
                new OutboxRelay(ds, "relay-1", config, RelayConfig.defaults().withMaxAttempts(1));
        assertThat(relay.relayNext(claim -> {
                    throw new IOException("accounting is down");
                }))
                .isPresent();
        OutboxMeters intents = new OutboxMeters(registry, outbox);
        assertThat(intents.refresh().dead()).isEqualTo(1);
    }

    private static CuratorFramework client(TestingServer zk) throws InterruptedException {
        CuratorFramework client = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryNTimes(10, 100));
        client.start();
        assertThat(client.blockUntilConnected((int) WAIT.toSeconds(), TimeUnit.SECONDS))
                .isTrue();
        return client;
    }

    @Test
    void everySeriesTheAlertRulesUseIsExported() throws IOException {
        List<String> exprs = QuerySelectors.ruleExpressions(OPS.resolve("prometheus/leasehold-alerts.yml"));
        assertThat(exprs).hasSize(9);
        assertEveryoneExported("leasehold-alerts.yml", exprs);
    }

    @Test
    void everySeriesTheDashboardQueriesIsExported() throws IOException {
        List<String> exprs = QuerySelectors.dashboardExpressions(OPS.resolve("grafana/leasehold-dashboard.json"));
        assertThat(exprs).hasSizeGreaterThan(10);
        assertEveryoneExported("leasehold-dashboard.json", exprs);
    }

    @Test
    void theScrapeCarriesWhatRealElectionsAndTheStoreDid() {
        ExportedSeries series = new ExportedSeries(scrape);
        assertThat(series.matching(
                        "leasehold_leadership_losses_total",
                        Map.of("election", "/billing", "participant", "a", "cause", "stalled")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
        assertThat(series.matching("leasehold_leader", Map.of("participant", "b")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
        assertThat(series.matching("leasehold_leader_token", Map.of("participant", "b")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo((double) leaderToken.value()));
        assertThat(series.matching(
                        "leasehold_partitions_held", Map.of("election", "/billing/partitions", "participant", "b")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(2.0));
        assertThat(series.matching("leasehold_fence_writes_total", Map.of("resource", "billing", "outcome", "stale")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
        assertThat(series.matching("leasehold_claims_total", Map.of("outcome", "lost_on_finish")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
        assertThat(series.matching("leasehold_outbox_intents", Map.of("status", "dead")))
                .singleElement()
                .satisfies(s -> assertThat(s.value()).isEqualTo(1.0));
    }

    private static void assertEveryoneExported(String file, List<String> exprs) {
        ExportedSeries series = new ExportedSeries(scrape);
        List<String> missing = new ArrayList<>();
        int checked = 0;
        for (String expr : exprs) {
            for (QuerySelectors.Selector selector : QuerySelectors.selectors(file, expr)) {
                checked++;
                if (series.matching(selector.name(), selector.equal()).isEmpty()) {
                    missing.add(selector.name() + selector.equal() + " (in: " + expr + ")");
                }
            }
        }
        assertThat(checked).as("selectors found in %s", file).isGreaterThanOrEqualTo(exprs.size());
        assertThat(missing)
                .as("series used by %s but not in a scrape of Micrometer's Prometheus registry:%n%s", file, scrape)
                .isEmpty();
    }
}
