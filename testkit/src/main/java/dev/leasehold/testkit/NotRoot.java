package dev.leasehold.testkit;

/**
 * PostgreSQL refuses to run as root, so whatever starts an embedded PostgreSQL says so plainly instead of failing
 * with initdb's message. Thread-safe: it keeps no state.
 */
public final class NotRoot {

    private NotRoot() {}

    /** @return whether this JVM runs as root */
    public static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * For tests that start PostgreSQL.
     *
     * @throws IllegalStateException if this JVM runs as root
     */
    public static void require() {
        require("run the tests as an unprivileged user");
    }

    /**
     * @param advice what to do instead, e.g. "run the build as an unprivileged user"
     * @throws IllegalStateException if this JVM runs as root
     */
    public static void require(String advice) {
        if (isRoot()) {
            throw new IllegalStateException("PostgreSQL refuses to run as root: " + advice);
        }
    }
}
