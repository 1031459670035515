package dev.leasehold.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.time.Duration;

/**
 * zonky's embedded PostgreSQL builder with a startup wait for a busy machine.
 *
 * <p>zonky gives a new server 10 s to accept connections. On 2 cores, with the build's other test JVMs running beside
 * it, a start took longer in a CI rehearsal ({@code OpsCommandsTest}: "Gave up waiting for server to start after
 * 10000ms", while the scenarios ran four at once beside the examples' tests). A server that starts late is no defect
 * of ours; a server that does not start in {@link #STARTUP_WAIT} still fails the test.
 */
public final class PatientPostgres {

    /** How long a new server may take to accept connections. */
    public static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private PatientPostgres() {}

    /** @return a new builder that waits up to {@link #STARTUP_WAIT} for the server to start */
    public static EmbeddedPostgres.Builder builder() {
        return EmbeddedPostgres.builder().setPGStartupWait(STARTUP_WAIT);
    }
}
