package dev.leasehold.scenarios.cli;

import picocli.CommandLine.Option;

/**
 * The database options every command that talks to a database takes ({@code run}, {@code bench}, {@code chaos},
 * {@code inspect}, {@code rebase}), as one picocli mixin: {@code --jdbc URL}, {@code --user}, {@code --password}. What
 * a command does without {@code --jdbc} is its own (an in-memory H2 for {@code run}, H2 over TCP for {@code chaos}, a
 * usage error for {@code rebase}) and is said in its description.
 *
 * <p>Thread-safety: filled by picocli once, then read on the command's thread.
 */
public final class DatabaseOptions {

    @Option(
            names = "--jdbc",
            paramLabel = "URL",
            description = "a real database, e.g. jdbc:postgresql://host/db or jdbc:mariadb://host/db"
                    + " (without it: see the command's description)")
    private String jdbc;

    @Option(names = "--user", description = "database user")
    private String user;

    @Option(names = "--password", description = "database password")
    private String password;

    /** Creates empty options, for picocli to fill. */
    public DatabaseOptions() {}

    /** The {@code --jdbc} URL, or null when none was given. */
    public String jdbc() {
        return jdbc;
    }

    /** The {@code --user}, or null. */
    public String user() {
        return user;
    }

    /** The {@code --password}, or null. */
    public String password() {
        return password;
    }

    /** These options, each one not given here taken from {@code parent} (a subcommand's over its parent's). */
    DatabaseOptions orElse(DatabaseOptions parent) {
        DatabaseOptions merged = new DatabaseOptions();
        merged.jdbc = jdbc != null ? jdbc : parent.jdbc;
        merged.user = user != null ? user : parent.user;
        merged.password = password != null ? password : parent.password;
        return merged;
    }
}
