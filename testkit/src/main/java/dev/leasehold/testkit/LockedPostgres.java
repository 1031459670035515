package dev.leasehold.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;

/**
 * An embedded PostgreSQL (zonky) that only a client with its password can enter.
 *
 * <p>zonky runs {@code initdb -A trust -U postgres}: as it comes, any local user can connect to the server's
 * loopback port as the superuser {@code postgres} and run {@code COPY ... TO PROGRAM} as the user that started it.
 * {@link #start} gives the superuser a random password, replaces {@code pg_hba.conf} with password-only rules
 * ({@code scram-sha-256} on loopback and the Unix socket, nothing else) and reloads the configuration before it
 * returns; the data sources zonky hands out ({@link EmbeddedPostgres#getPostgresDatabase()}) carry the password.
 * The rules are in the data directory, so a restart of the same data directory starts locked.
 *
 * <p>IMPORTANT: zonky offers no hook between {@code initdb} and the first start, so for the first few milliseconds
 * after a new data directory's server starts (until this method has reloaded the rules) it still trusts loopback
 * connections. The port is not known to anyone before then, but a local process scanning ports at that instant
 * could get in. Use a database server of your own (with {@code --jdbc}) where that matters.
 */
public final class LockedPostgres {
    /** The superuser zonky's {@code initdb} creates. */
    public static final String USER = "postgres";

    private static final SecureRandom RANDOM = new SecureRandom();

    private LockedPostgres() {}

    /** @return a fresh random password: 24 hexadecimal characters (96 bits) */
    public static String newPassword() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /**
     * Starts {@code builder}'s server with {@code password} as its only way in.
     *
     * @param builder  zonky's builder, configured by the caller (port, data directory, server settings)
     * @param password the superuser's password, from {@link #newPassword()} (hexadecimal only)
     * @return the running server; its data sources connect with the password
     * @throws IOException if the server does not start or cannot be locked (it is then stopped)
     */
    public static EmbeddedPostgres start(EmbeddedPostgres.Builder builder, String password) throws IOException {
        if (password == null || !password.matches("[0-9a-f]{16,64}")) {
            throw new IllegalArgumentException(
                    "password must be 16 to 64 lower-case hexadecimal characters, " + "as newPassword() makes");
        }
        EmbeddedPostgres postgres =
                builder.setConnectConfig("password", password).start();
        try {
            lock(postgres, password);
            return postgres;
        } catch (SQLException | IOException | RuntimeException e) {
            postgres.close();
            throw new IOException("could not lock the embedded PostgreSQL with a password: " + e.getMessage(), e);
        }
    }

    private static void lock(EmbeddedPostgres postgres, String password) throws SQLException, IOException {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            Path hba;
            try (ResultSet rs = s.executeQuery("SHOW hba_file")) {
                rs.next();
                hba = Path.of(rs.getString(1));
            }
            if (Files.readString(hba, StandardCharsets.UTF_8).startsWith(HEADER)) {
                return; // a restart of a data directory locked before
            }
            s.execute("ALTER ROLE " + USER + " PASSWORD '" + password + "'"); // hexadecimal: nothing to escape
            Files.writeString(hba, RULES, StandardCharsets.UTF_8);
            try (ResultSet rs = s.executeQuery("SELECT pg_reload_conf()")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    throw new SQLException("pg_reload_conf() returned false");
                }
            }
        }
    }

    private static final String HEADER = "# leasehold: password only\n";
    private static final String RULES = HEADER
            + "local all all scram-sha-256\n"
            + "host all all 127.0.0.1/32 scram-sha-256\n"
            + "host all all ::1/128 scram-sha-256\n";
}
