package dev.leasehold.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link PatroniCluster} needs from the machine, and a one-line hint when it is missing: Debian's {@code
 * patroni} (3.x) run by Debian's {@code /usr/bin/python3}, {@code python3-kazoo} (Patroni's ZooKeeper client) and
 * PostgreSQL 15's binaries. Stateless and thread-safe.
 */
public final class Patroni {

    /** Debian's Patroni. */
    public static final String PATRONI = "/usr/bin/patroni";

    /** PostgreSQL's binaries the members run. */
    public static final String POSTGRES_BIN = "/usr/lib/postgresql/15/bin";

    /** What to run to get the packages (as root). */
    public static final String HOW_TO_INSTALL =
            "apt-get install -y patroni python3-kazoo postgresql-15 (as root; .ci/patroni does it)";

    private Patroni() {}

    /**
     * @return the Debian packages that are missing ({@code patroni}, {@code python3-kazoo}, {@code postgresql-15}),
     *     empty when a {@link PatroniCluster} can start
     */
    public static List<String> missingPackages() {
        List<String> missing = new ArrayList<>();
        if (!Files.isExecutable(Path.of(PATRONI))) {
            missing.add("patroni");
        }
        if (!Files.isDirectory(Path.of("/usr/lib/python3/dist-packages/kazoo"))) {
            missing.add("python3-kazoo");
        }
        if (!Files.isExecutable(Path.of(POSTGRES_BIN, "postgres"))) {
            missing.add("postgresql-15");
        }
        return List.copyOf(missing);
    }

    /** @return whether every package is there */
    public static boolean available() {
        return missingPackages().isEmpty();
    }

    /**
     * @return one line: which packages are missing and how to install them, or "" when none is
     */
    public static String hint() {
        List<String> missing = missingPackages();
        return missing.isEmpty()
                ? ""
                : "needs the Debian packages " + String.join(", ", missing) + ", missing here: " + HOW_TO_INSTALL;
    }
}
