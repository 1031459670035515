package dev.leasehold.spring;

/**
 * The starter's configuration cannot work: a {@code Candidate} bean but no way to reach ZooKeeper, a candidate with a
 * blank role, and the like. Thrown while the application context starts, so the context fails with this message.
 *
 * <p>Thread-safety: immutable once thrown.
 */
public class LeaseholdConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The action that fixes the problem, for the startup failure report. */
    private final String action;

    /**
     * @param message what is wrong
     * @param action  what to do about it
     * @param cause   the rejection that found it, or {@code null}
     */
    public LeaseholdConfigurationException(String message, String action, Throwable cause) {
        super(message, cause);
        this.action = action;
    }

    /**
     * What to do about it.
     *
     * @return the action for the startup failure report
     */
    public String action() {
        return action;
    }
}
