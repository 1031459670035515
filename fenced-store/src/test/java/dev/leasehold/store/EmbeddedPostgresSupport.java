package dev.leasehold.store;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;

/** Starts PostgreSQL 17 from Maven-provided binaries; no database needs to be installed. */
final class EmbeddedPostgresSupport {

    private EmbeddedPostgresSupport() {}

    static EmbeddedPostgres start() throws IOException {
        if ("root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("PostgreSQL refuses to run as root, so the embedded PostgreSQL tests"
                    + " cannot start: run the build as an unprivileged user (.ci/run does that when started as root)");
        }
        return EmbeddedPostgres.builder().start();
    }
}
