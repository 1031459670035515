package dev.leasehold.scenarios.cli;

import dev.leasehold.store.Redaction;
import java.net.UnknownHostException;
import java.sql.SQLException;

/**
 * Turns a failed first connection into one line that says what happened and what to do, and keeps passwords out
 * of every JDBC URL the program prints. Stateless, thread-safe.
 */
public final class DatabaseErrors {

    private DatabaseErrors() {}

    /** The URL with every credential masked: the store's one {@link Redaction}, which every output uses. */
    public static String redact(String url) {
        return Redaction.redact(url);
    }

    /**
     * The error for a first connection to {@code url} that failed with {@code e}: refused credentials, an unknown
     * host, a missing driver, or (otherwise) an unreachable database with the root cause shown.
     */
    public static EnvException connecting(String url, String user, SQLException e) {
        String at = redact(url);
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        UnknownHostException unknown = find(e, UnknownHostException.class);
        if (state.startsWith("28")) {
            return new EnvException(
                    "the database at " + at + " refused the credentials"
                            + (user == null ? "" : " for user '" + user + "'") + " (SQLState " + state
                            + "): check --user and --password",
                    e);
        }
        if (unknown != null) {
            return new EnvException(
                    "cannot resolve the database host " + unknown.getMessage() + " in " + at
                            + ": check the host name in --jdbc (unknown host)",
                    e);
        }
        if (e.getMessage() != null && e.getMessage().startsWith("No suitable driver")) {
            return new EnvException(noDriver(at), e);
        }
        Throwable root = root(e);
        String cause = root == e ? "" : " (cause: " + root + ")";
        return new EnvException("cannot reach the database at " + at + ": " + e.getMessage() + cause, e);
    }

    private static String noDriver(String at) {
        if (at.startsWith("jdbc:mysql:")) {
            return "no JDBC driver for jdbc:mysql: URLs in this program: put MySQL Connector/J"
                    + " (com.mysql:mysql-connector-j) on the class path, or for MariaDB use jdbc:mariadb:// (bundled)";
        }
        return "no JDBC driver accepts " + at
                + ": this program bundles H2 (jdbc:h2:), PostgreSQL (jdbc:postgresql:) and MariaDB (jdbc:mariadb:);"
                + " put another database's driver on the class path";
    }

    private static <T extends Throwable> T find(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    private static Throwable root(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }
}
