package dev.leasehold.scenarios.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The database options every command that talks to a database takes ({@code run}, {@code bench}, {@code chaos},
 * {@code inspect}, {@code rebase}), as one picocli mixin: {@code --jdbc URL}, {@code --user}, {@code --password} or {@code --password-file FILE}
 * (or {@value #PASSWORD_VARIABLE}). What
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

    @Option(
            names = "--password",
            description = "database password (every local user can read a command line: prefer --password-file or"
                    + " LEASEHOLD_JDBC_PASSWORD)")
    private String password;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description = "read the database password from FILE (its first line); without --password and"
                    + " --password-file, the environment variable LEASEHOLD_JDBC_PASSWORD is used when set")
    private Path passwordFile;

    /** The environment variable the password is taken from when neither option gives one. */
    public static final String PASSWORD_VARIABLE = "LEASEHOLD_JDBC_PASSWORD";

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

    /**
     * The password: {@code --password}, else the first line of {@code --password-file}, else
     * {@value #PASSWORD_VARIABLE}, else null.
     *
     * @throws EnvException if both options are given, or the file cannot be read
     */
    public String password() {
        if (password != null && passwordFile != null) {
            throw new EnvException("give --password or --password-file, not both", null);
        }
        if (password != null) {
            return password;
        }
        if (passwordFile != null) {
            try (BufferedReader in = Files.newBufferedReader(passwordFile, StandardCharsets.UTF_8)) {
                String line = in.readLine();
                return line == null ? "" : line;
            } catch (IOException e) {
                throw new EnvException("--password-file: cannot read " + passwordFile + ": " + e.getMessage(), e);
            }
        }
        return System.getenv(PASSWORD_VARIABLE);
    }

    /** These options, each one not given here taken from {@code parent} (a subcommand's over its parent's). */
    DatabaseOptions orElse(DatabaseOptions parent) {
        DatabaseOptions merged = new DatabaseOptions();
        merged.jdbc = jdbc != null ? jdbc : parent.jdbc;
        merged.user = user != null ? user : parent.user;
        merged.password = password != null ? password : parent.password;
        merged.passwordFile = passwordFile != null ? passwordFile : parent.passwordFile;
        return merged;
    }
}
