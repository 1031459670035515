package dev.leasehold.scenarios.cli;

import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.NotRoot;
import dev.leasehold.testkit.Patroni;
import dev.leasehold.testkit.StandalonePatroni;
import java.io.PrintStream;
import java.io.UncheckedIOException;

/**
 * {@code chaos --patroni} and {@code --patroni-async}'s store: a Patroni cluster of two PostgreSQL 15 members with a
 * ZooKeeper of its own as its DCS (a TestingServer, apart from the campaign's ensemble, whose faults would otherwise
 * fail the database over too), in a temporary directory; everything stopped and deleted on close. Not thread-safe.
 */
final class PatroniStore implements AutoCloseable {

    private final StandalonePatroni patroni;

    private PatroniStore(StandalonePatroni patroni) {
        this.patroni = patroni;
    }

    /**
     * Starts the cluster, synchronous (strict) or asynchronous.
     *
     * @throws EnvException if the packages are missing, this JVM is root, or the cluster does not start
     */
    static PatroniStore start(boolean synchronous, String option, PrintStream out) {
        if (!Patroni.available()) {
            throw new EnvException(option + ": " + Patroni.hint(), null);
        }
        if (NotRoot.isRoot()) {
            throw new EnvException(
                    option + ": Patroni and PostgreSQL refuse to run as root: run chaos as an unprivileged user", null);
        }
        try {
            long from = System.nanoTime();
            StandalonePatroni patroni = StandalonePatroni.start(synchronous, "leasehold-chaos-patroni-");
            out.printf(
                    "  Patroni cluster of 2 PostgreSQL 15 members (%s) up in %.1f s, its DCS a ZooKeeper of its own%n",
                    synchronous ? "synchronous_mode strict" : "asynchronous", (System.nanoTime() - from) / 1e9);
            return new PatroniStore(patroni);
        } catch (Exception e) {
            throw new EnvException(option + ": the Patroni cluster did not start: " + e.getMessage(), e);
        }
    }

    /** @return the campaign's database: the cluster's primary of the moment */
    ChaosDatabase database() {
        return ChaosDatabase.patroni(patroni.cluster());
    }

    @Override
    public void close() {
        try {
            patroni.close();
        } catch (UncheckedIOException e) {
            // the campaign is over; a temporary server
        }
    }
}
