package dev.leasehold.store.lease;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The holder as stored in a lease row: the id a user gave plus a random suffix ({@code #} and 16 hex digits) unique to
 * one hold of a lock (or one election instance), so that two processes configured with one holder id never match each
 * other's row in a renew or a release. Users see the id they gave: {@link #shown} strips the suffix again.
 *
 * <p>The column holds {@link Names#MAX} characters, so an id longer than {@code MAX - 17} is cut to that length before
 * the suffix; {@link #shown} then gives the cut id for a row of another process. Stateless, thread-safe.
 */
final class HolderIds {

    /** {@code #} and 16 hex digits: 64 random bits. */
    static final int SUFFIX_LENGTH = 17;

    private static final Pattern SUFFIX = Pattern.compile("#[0-9a-f]{16}$");
    private static final SecureRandom RANDOM = new SecureRandom();

    private HolderIds() {}

    /** {@code holder} (a checked id, see {@link Names#check}) with a new random suffix. */
    static String unique(String holder) {
        int keep = Math.min(holder.length(), Names.MAX - SUFFIX_LENGTH);
        if (keep < holder.length() && Character.isHighSurrogate(holder.charAt(keep - 1))) {
            keep--; // never split a character in two
        }
        byte[] random = new byte[8];
        RANDOM.nextBytes(random);
        return holder.substring(0, keep) + "#" + HexFormat.of().formatHex(random);
    }

    /** The id a user gave, from a stored holder; a holder stored without a suffix (an older version) as it is. */
    static String shown(String stored) {
        if (stored == null || stored.length() <= SUFFIX_LENGTH) {
            return stored;
        }
        return SUFFIX.matcher(stored).find() ? stored.substring(0, stored.length() - SUFFIX_LENGTH) : stored;
    }
}
