package dev.leasehold.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Connect strings taken apart once, for the proxies (one per server) and the chroot check. */
class ConnectStringTest {

    @Test
    void serversAndChrootAreTakenApart() {
        ConnectString connect = ConnectString.parse("zk1:2181,10.0.0.2:2182/billing/prod");
        assertThat(connect.servers())
                .containsExactly(new ConnectString.Server("zk1", 2181), new ConnectString.Server("10.0.0.2", 2182));
        assertThat(connect.chroot()).isEqualTo("/billing/prod");
        assertThat(connect.hosts()).isEqualTo("zk1:2181,10.0.0.2:2182");
        assertThat(connect).hasToString("zk1:2181,10.0.0.2:2182/billing/prod");
    }

    @Test
    void noChrootIsTheEmptyString() {
        assertThat(ConnectString.parse("127.0.0.1:2181").chroot()).isEmpty();
    }

    @Test
    void aMalformedConnectStringIsRefusedWithWhatWasExpected() {
        for (String bad : List.of("", "zk1", "zk1:", ":2181", "zk1:port", "zk1:2181,", "zk1:99999")) {
            assertThatThrownBy(() -> ConnectString.parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("host:port");
        }
    }

    @Test
    void aGivenEnsembleIsNeverHarmed() {
        Ensemble given = Ensemble.given("127.0.0.1:2181/x");
        assertThat(given.owned()).isFalse();
        assertThat(given.connectString().chroot()).isEqualTo("/x");
        assertThatThrownBy(given::instances)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not touched");
    }
}
