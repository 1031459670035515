package dev.leasehold.store;

/**
 * A write offered a token lower than the highest the resource has seen: it came from a stale leader. Nothing of
 * the write was kept. The caller should stop, write nothing more with this token and drop back to follower.
 *
 * <p>Thrown only when a higher token was actually read from the resource's mark: {@link #highestToken()} is always
 * greater than {@link #offeredToken()}. Thread-safety: immutable once thrown.
 */
public class StaleTokenException extends FencingException {

    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long offeredToken;
    private final long highestToken;

    public StaleTokenException(String resource, long offeredToken, long highestToken) {
        super("stale token " + offeredToken + " for resource '" + resource + "': the highest token seen is "
                + highestToken + "; nothing was written");
        this.resource = resource;
        this.offeredToken = offeredToken;
        this.highestToken = highestToken;
    }

    public String resource() {
        return resource;
    }

    public long offeredToken() {
        return offeredToken;
    }

    /** The higher token read from the resource's mark (always greater than the offered one). */
    public long highestToken() {
        return highestToken;
    }
}
