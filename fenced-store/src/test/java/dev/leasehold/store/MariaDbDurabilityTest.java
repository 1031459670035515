package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.store.FailoverDurability.Replication;
import dev.leasehold.store.testing.MariaDb;
import dev.leasehold.store.testing.WithMariaDb;
import org.junit.jupiter.api.Test;

/**
 * The durability check on MariaDB: CI's server has no replica and no semi-synchronous replication, so the answer is
 * STANDALONE (binary log off) or UNKNOWN (binary log on: which replicas stream is not readable), never a risk it
 * cannot see.
 */
@WithMariaDb
class MariaDbDurabilityTest {

    @Test
    void aServerWithoutSemiSynchronousReplicationSaysWhatItCanSee() {
        FailoverDurability durability = FencedSchema.durability(MariaDb.freshDatabase("durability"));

        assertThat(durability.replication()).isIn(Replication.STANDALONE, Replication.UNKNOWN);
        assertThat(durability.atRisk()).isFalse();
        assertThat(durability.reason()).containsAnyOf("log_bin = OFF", "semi-synchronous replication is off");
    }
}
