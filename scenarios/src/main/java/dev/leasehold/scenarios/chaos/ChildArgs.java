package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * What a participant in a child JVM ({@link ChaosChild}, {@code PauseChild}) needs, written to its command line by
 * the parent and read back by the child: the one place that knows the order of the arguments and how an absent user
 * or password travels ({@code "-"}).
 *
 * <p>Immutable and thread-safe.
 *
 * @param zk        the ZooKeeper connect string (the participant's proxies, for the campaign)
 * @param jdbcUrl   the database, as a URL the child can reach
 * @param user      database user, or null
 * @param password  database password, or null
 * @param prefix    the table prefix of the store and the history table
 * @param id        the participant's id (1 to 20 characters, no spaces)
 * @param selector  a FencedLeaderSelector rather than a FencedLeaderLatch
 * @param path      the election path
 * @param resource  the fenced resource
 * @param sessionMs the ZooKeeper session timeout requested
 * @param fenced    writes go through the gate; false: straight to the table, as code without a gate would
 */
public record ChildArgs(
        String zk,
        String jdbcUrl,
        String user,
        String password,
        String prefix,
        String id,
        boolean selector,
        String path,
        String resource,
        int sessionMs,
        boolean fenced) {

    private static final String ABSENT = "-";
    private static final int COUNT = 11;

    public ChildArgs {
        for (String[] field : new String[][] {
            {"zk", zk}, {"jdbcUrl", jdbcUrl}, {"prefix", prefix}, {"id", id}, {"path", path}, {"resource", resource}
        }) {
            if (field[1] == null || field[1].isEmpty()) {
                throw new IllegalArgumentException(field[0] + " must not be empty, was " + field[1]);
            }
        }
        if (id.length() > 20) {
            throw new IllegalArgumentException("id must be at most 20 characters, was " + id);
        }
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with '/', was " + path);
        }
        if (sessionMs <= 0) {
            throw new IllegalArgumentException("sessionMs must be positive, was " + sessionMs);
        }
        if (ABSENT.equals(user) || ABSENT.equals(password)) {
            throw new IllegalArgumentException("a user or password of \"-\" cannot be passed to a child JVM");
        }
    }

    /** A latch participant, fenced, with no database user. */
    public static ChildArgs of(
            String zk, String jdbcUrl, String prefix, String id, String path, String resource, int sessionMs) {
        return new ChildArgs(zk, jdbcUrl, null, null, prefix, id, false, path, resource, sessionMs, true);
    }

    public ChildArgs withCredentials(String user, String password) {
        return new ChildArgs(zk, jdbcUrl, user, password, prefix, id, selector, path, resource, sessionMs, fenced);
    }

    public ChildArgs withSelector(boolean selector) {
        return new ChildArgs(zk, jdbcUrl, user, password, prefix, id, selector, path, resource, sessionMs, fenced);
    }

    public ChildArgs withFenced(boolean fenced) {
        return new ChildArgs(zk, jdbcUrl, user, password, prefix, id, selector, path, resource, sessionMs, fenced);
    }

    /**
     * The command line, in the order {@link #parse} reads it. The password never stands on it (every local user can
     * read a process's command line): it goes into a file only this user can read, named on the command line
     * ({@link ChildJvm#secretArgument}), which the child deletes once read.
     *
     * @throws UncheckedIOException if the password's file cannot be written
     */
    public List<String> toArgs() {
        String secret;
        try {
            secret = password == null ? ABSENT : ChildJvm.secretArgument(password);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the database password for a child JVM", e);
        }
        return List.of(
                zk,
                jdbcUrl,
                user == null ? ABSENT : user,
                secret,
                prefix,
                id,
                Member.election(selector),
                path,
                resource,
                String.valueOf(sessionMs),
                fenced ? "fenced" : "unfenced");
    }

    /**
     * @throws IllegalArgumentException if {@code args} is not what {@link #toArgs} wrote
     */
    public static ChildArgs parse(String[] args) {
        if (args.length != COUNT) {
            throw new IllegalArgumentException("expected " + COUNT + " arguments: zk jdbc-url user password prefix id"
                    + " latch|selector path resource session-ms fenced|unfenced; got " + List.of(args));
        }
        return new ChildArgs(
                args[0],
                args[1],
                absentAsNull(args[2]),
                absentAsNull(secret(args[3])),
                args[4],
                args[5],
                word(args[6], Member.election(true), Member.election(false)),
                args[7],
                args[8],
                Integer.parseInt(args[9]),
                word(args[10], "fenced", "unfenced"));
    }

    private static String secret(String arg) {
        try {
            return ChildJvm.readSecretArgument(arg);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the database password the parent left", e);
        }
    }

    private static String absentAsNull(String arg) {
        return ABSENT.equals(arg) ? null : arg;
    }

    private static boolean word(String arg, String yes, String no) {
        if (!arg.equals(yes) && !arg.equals(no)) {
            throw new IllegalArgumentException("expected " + yes + " or " + no + ", got " + arg);
        }
        return arg.equals(yes);
    }
}
