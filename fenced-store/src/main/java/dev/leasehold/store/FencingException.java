package dev.leasehold.store;

/** The root of every exception the fenced store throws. Unchecked. Thread-safety: immutable once thrown. */
public class FencingException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param message what went wrong */
    public FencingException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong
     * @param cause   why
     */
    public FencingException(String message, Throwable cause) {
        super(message, cause);
    }
}
