package dev.leasehold.examples.fencebench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The bench's flags, validated.
 *
 * @param seconds  measured time per side of each cell (plain, fenced), split into {@link #ROUNDS} alternating rounds
 * @param warmup   warm-up time per side of each cell, before its measured rounds, alternating the same way
 * @param threads  the thread counts, one cell per count and kind (JPA, JdbcTemplate)
 * @param jdbcUrl  a PostgreSQL (or PgBouncer in front of one) to measure too, besides the embedded one; or null
 * @param user     its user, or null (in the URL)
 * @param password   its password, or null (in the URL)
 * @param references whether to measure the references too (the JdbcTemplate insert with the check by hand, and with
 *                   one round trip more), which show where the fenced side's time goes
 */
record BenchOptions(
        double seconds,
        double warmup,
        List<Integer> threads,
        String jdbcUrl,
        String user,
        String password,
        boolean references) {

    /** Measured rounds per side of a cell. */
    static final int ROUNDS = 10;

    static final String USAGE = "usage: fence-bench [--seconds S] [--warmup S] [--threads N,N...] [--jdbc URL"
            + " [--user U] [--password P]] [--no-references]\n"
            + "  --seconds   measured seconds per side of each cell (default 3), in " + ROUNDS
            + " alternating rounds\n"
            + "  --warmup    warm-up seconds per side of each cell (default 1)\n"
            + "  --threads   thread counts (default 1,8)\n"
            + "  --jdbc      also measure this PostgreSQL URL (e.g. PgBouncer in transaction mode, with"
            + " prepareThreshold=0);\n"
            + "              the password may come from LEASEHOLD_JDBC_PASSWORD\n"
            + "  --no-references  skip the reference rows (the check by hand; one round trip more)";

    BenchOptions {
        if (!(seconds > 0 && seconds <= 3600)) {
            throw new IllegalArgumentException("--seconds must be more than 0 and at most 3600, was " + seconds);
        }
        if (!(warmup >= 0 && warmup <= 3600)) {
            throw new IllegalArgumentException("--warmup must be 0 to 3600, was " + warmup);
        }
        threads = List.copyOf(threads);
        if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 64)) {
            throw new IllegalArgumentException("--threads must list 1 to 64 threads per cell, was " + threads);
        }
        if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--jdbc must be a jdbc:postgresql: URL (the bench measures PostgreSQL)");
        }
    }

    /** The defaults: 3 s measured and 1 s of warm-up per side of each cell, at 1 and 8 threads, embedded only. */
    static BenchOptions defaults() {
        return new BenchOptions(3, 1, List.of(1, 8), null, null, null, true);
    }

    /**
     * Parses {@code --name value} or {@code --name=value} flags.
     *
     * @throws IllegalArgumentException naming the flag that is wrong
     */
    static BenchOptions parse(String... args) {
        double seconds = 3;
        double warmup = 1;
        List<Integer> threads = List.of(1, 8);
        String url = null;
        String user = null;
        String password = System.getenv("LEASEHOLD_JDBC_PASSWORD");
        boolean references = true;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--no-references")) {
                references = false;
                continue;
            }
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            String value;
            if (arg.contains("=")) {
                value = arg.substring(arg.indexOf('=') + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new IllegalArgumentException(arg + " needs a value\n" + USAGE);
            }
            switch (name) {
                case "--seconds" -> seconds = number(name, value);
                case "--warmup" -> warmup = number(name, value);
                case "--threads" -> threads = threads(value);
                case "--jdbc" -> url = value;
                case "--user" -> user = value;
                case "--password" -> password = value;
                default -> throw new IllegalArgumentException("unknown flag " + name + "\n" + USAGE);
            }
        }
        return new BenchOptions(seconds, warmup, threads, url, user, password, references);
    }

    private static double number(String name, String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number of seconds, was " + value, e);
        }
    }

    private static List<Integer> threads(String value) {
        List<Integer> counts = new ArrayList<>();
        for (String count : value.split(",")) {
            try {
                counts.add(Integer.parseInt(count.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--threads must be a list like 1,8, was " + value, e);
            }
        }
        return counts;
    }

    /** The flags as given again, for the report (no URL, no password). */
    String command() {
        StringBuilder counts = new StringBuilder();
        threads.forEach(t -> counts.append(counts.length() == 0 ? "" : ",").append(t));
        return String.format(Locale.ROOT, "--seconds %s --warmup %s --threads %s", seconds, warmup, counts)
                + (jdbcUrl == null ? "" : " --jdbc URL")
                + (references ? "" : " --no-references");
    }

    @Override
    public String toString() {
        return "BenchOptions[" + command() + "]"; // never the password
    }
}
