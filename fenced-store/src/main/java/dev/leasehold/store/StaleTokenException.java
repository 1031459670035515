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

    /** The resource whose mark refused the write. */
    private final String resource;
    /** The token the write carried. */
    private final long offeredToken;
    /** The higher token read from the resource's mark. */
    private final long highestToken;

    /**
     * @param resource     the resource whose mark refused the write
     * @param offeredToken the token the write carried
     * @param highestToken the higher token read from the resource's mark
     */
    public StaleTokenException(String resource, long offeredToken, long highestToken) {
        super("stale token " + offeredToken + " for resource '" + resource + "': the highest token seen is "
                + highestToken + "; nothing was written");
        this.resource = resource;
        this.offeredToken = offeredToken;
        this.highestToken = highestToken;
    }

    /** @return the resource whose mark refused the write */
    public String resource() {
        return resource;
    }

    /** @return the token the write carried */
    public long offeredToken() {
        return offeredToken;
    }

    /** @return the higher token read from the resource's mark (always greater than the offered one) */
    public long highestToken() {
        return highestToken;
    }
}
