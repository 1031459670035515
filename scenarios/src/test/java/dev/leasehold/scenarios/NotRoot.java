package dev.leasehold.scenarios;

/** The tests that start an embedded PostgreSQL: it refuses to run as root, so say so plainly. */
public final class NotRoot {

    private NotRoot() {}

    public static void require() {
        if ("root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("PostgreSQL refuses to run as root: run the build as an unprivileged"
                    + " user (.ci/run does that when started as root)");
        }
    }
}
