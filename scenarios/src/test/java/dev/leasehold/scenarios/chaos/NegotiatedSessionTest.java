package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.testkit.Ensemble;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

/** The campaign prints, and times its faults by, what the server granted, not what the participants asked. */
class NegotiatedSessionTest {

    @Test
    void aServerThatBoundsSessionsGrantsMoreThanTheCampaignAsksAndSaysSo() throws Exception {
        // As ZooKeeper's default tickTime of 2000 ms does (sessions of 4 to 40 s): the ask of 2 s becomes 4 s.
        // curator-test's server does not derive the bound from its tick, so it is set as the server's own setting.
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 2_000, 0, Map.of("minSessionTimeout", "4000"));
        try (TestingServer zk = new TestingServer(spec, true)) {
            NegotiatedSession session = NegotiatedSession.of(Ensemble.given(zk.getConnectString()));
            assertThat(session.ms()).isEqualTo(4_000);
            assertThat(session.label()).isEqualTo("4000 ms (negotiated by the server; asked 2000 ms)");
        }
    }
}
