package dev.leasehold.store.lease;

import java.net.InetAddress;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** The checks of lease names and holder ids, and the default holder id. Stateless, thread-safe. */
final class Names {

    /** The columns' width. */
    static final int MAX = 200;

    private Names() {}

    /**
     * A name or holder id: non-blank, at most {@link #MAX} characters, no blanks at either end (MariaDB's PAD SPACE
     * keys would make "billing" and "billing " one lease), no control characters (they end up in logs).
     */
    static String check(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    what + " must be a non-blank string, was " + (value == null ? "null" : "'" + value + "'"));
        }
        if (value.length() > MAX) {
            throw new IllegalArgumentException(what + " must be at most " + MAX + " characters, was " + value.length());
        }
        if (!value.equals(value.strip())) {
            throw new IllegalArgumentException(what + " must not start or end with blanks, was '" + value + "'");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(
                    what + " must not contain control characters, was '" + value.replaceAll("\\p{Cntrl}", "?") + "'");
        }
        return value;
    }

    /** {@code host-pid-random}: unique per election even for two elections of one process. */
    static String defaultHolder() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                host = "host";
            }
        }
        host = host.strip().replaceAll("[^A-Za-z0-9._-]", "_");
        if (host.length() > 120) {
            host = host.substring(0, 120);
        }
        String pid = String.valueOf(ProcessHandle.current().pid());
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return host + "-" + pid + "-" + HexFormat.of().formatHex(random);
    }
}
