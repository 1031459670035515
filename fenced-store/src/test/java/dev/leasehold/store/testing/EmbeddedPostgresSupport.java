package dev.leasehold.store.testing;

import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.PatientPostgres;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Starts PostgreSQL 17 from Maven-provided binaries; no database needs to be installed. */
public final class EmbeddedPostgresSupport {

    private static EmbeddedPostgres shared;

    private EmbeddedPostgresSupport() {}

    public static EmbeddedPostgres start() throws IOException {
        NotRoot.require("the embedded PostgreSQL tests cannot start; run the build as an unprivileged user (.ci/run"
                + " does that when started as root)");
        return PatientPostgres.builder().start();
    }

    /**
     * One server for the test classes that can share it (each uses its own database), started on first use and
     * stopped when the test JVM exits.
     */
    public static synchronized EmbeddedPostgres shared() {
        if (shared == null) {
            try {
                shared = start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EmbeddedPostgres server = shared;
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try {
                                    server.close();
                                } catch (IOException ignored) {
                                    // the JVM is exiting
                                }
                            },
                            "embedded-postgres-stop"));
        }
        return shared;
    }
}
