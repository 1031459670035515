package dev.leasehold.store;

import java.util.OptionalLong;

/**
 * A compare-and-set re-base ({@link FenceGate#rebase(String, OptionalLong, long, String, String)}) found another mark
 * than the one the operator saw: a leader advanced (or someone re-based) meanwhile. Nothing was written: look at the
 * mark again before deciding. Immutable once thrown.
 */
public final class MarkMovedException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** The fenced resource. */
    private final String resource;

    private final transient OptionalLong expected;
    private final transient OptionalLong actual;

    /**
     * @param resource the fenced resource
     * @param expected the mark the caller saw
     * @param actual   the mark found under the lock
     */
    public MarkMovedException(String resource, OptionalLong expected, OptionalLong actual) {
        super("the fence of '" + resource + "' was not re-based: its mark is " + describe(actual) + ", not the "
                + describe(expected) + " that was shown; a leader advanced or someone re-based meanwhile (nothing"
                + " was written: look again)");
        this.resource = resource;
        this.expected = expected;
        this.actual = actual;
    }

    private static String describe(OptionalLong mark) {
        return mark.isPresent() ? Long.toString(mark.getAsLong()) : "no mark";
    }

    /** @return the fenced resource */
    public String resource() {
        return resource;
    }

    /** @return the mark the caller expected */
    public OptionalLong expected() {
        return expected;
    }

    /** @return the mark found */
    public OptionalLong actual() {
        return actual;
    }
}
