package dev.leasehold.shedlock;

import java.nio.charset.StandardCharsets;
import org.apache.zookeeper.data.Stat;

/**
 * The data of a lock's node under the base path, as {@link ZookeeperFencedLockProvider} writes it: one line of text,
 * {@code leasehold-shedlock/1 token=<t> for=<ms> until=<ms>}, readable with {@code zkCli.sh get}.
 *
 * <p>Times are the ZooKeeper server's: a write's own time is the {@code mtime} of the node's {@link Stat} after it, so
 * a duration is stored relative to the write that stored it ({@code for}) and an instant only when it was known
 * before the write ({@code until}, from an earlier write's {@code mtime}). The lock is held until
 * {@code max(mtime + for, until)}, exclusive. The token is the zxid of the acquiring write: {@code token=write} means
 * "this write acquired the lock", i.e. the node's {@code mzxid} (its {@code czxid} when the write created the node);
 * an extension or a release keeps the acquisition's token explicitly.
 *
 * @param grantToken the acquisition's token, or {@link #THIS_WRITE}
 * @param forMillis held for this long after the write that stored the data (server time)
 * @param untilMillis held at least until this server instant (epoch millis), or 0
 */
record LockNode(long grantToken, long forMillis, long untilMillis) {

    /** {@link #grantToken} of data written by the acquiring write itself. */
    static final long THIS_WRITE = 0;

    private static final String FORMAT = "leasehold-shedlock/1";

    /** The data of an acquisition held for {@code forMillis}. */
    static LockNode grant(long forMillis) {
        return new LockNode(THIS_WRITE, forMillis, 0);
    }

    /** The data of an extension of the grant {@code token}, held for {@code forMillis} from the extension. */
    static LockNode extension(long token, long forMillis) {
        return new LockNode(token, forMillis, 0);
    }

    /** The data of a release of {@code token}: free from the release's write on, but not before {@code leastUntil}. */
    static LockNode release(long token, long leastUntil) {
        return new LockNode(token, 0, leastUntil);
    }

    /** @return the server instant (epoch millis) from which the lock is free, given the node's Stat */
    long lockUntil(Stat stat) {
        return Math.max(plus(stat.getMtime(), forMillis), untilMillis);
    }

    /** @return the token of the grant this data belongs to, given the node's Stat */
    long token(Stat stat) {
        return grantToken == THIS_WRITE ? stat.getMzxid() : grantToken;
    }

    byte[] bytes() {
        return (FORMAT + " token=" + (grantToken == THIS_WRITE ? "write" : Long.toString(grantToken)) + " for="
                        + forMillis + " until=" + untilMillis)
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @throws IllegalArgumentException if the data was not written by this provider (saying what it found)
     */
    static LockNode parse(byte[] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        String[] parts = text.split(" ");
        if (parts.length == 4
                && parts[0].equals(FORMAT)
                && parts[1].startsWith("token=")
                && parts[2].startsWith("for=")
                && parts[3].startsWith("until=")) {
            try {
                String token = parts[1].substring("token=".length());
                return new LockNode(
                        token.equals("write") ? THIS_WRITE : Long.parseLong(token),
                        Long.parseLong(parts[2].substring("for=".length())),
                        Long.parseLong(parts[3].substring("until=".length())));
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("'" + (text.length() > 80 ? text.substring(0, 80) + "..." : text) + "'");
    }

    /** {@code a + b}, saturating at {@link Long#MAX_VALUE}. */
    static long plus(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
