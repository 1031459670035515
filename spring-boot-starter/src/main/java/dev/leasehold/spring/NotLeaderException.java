package dev.leasehold.spring;

import dev.leasehold.store.FencingException;

/**
 * A fenced check ({@link Fenced}, {@link LeaseholdFence#check(String)}) was refused before any statement because this
 * instance does not lead: it holds no grant of the role's election, or its grant was withdrawn (a suspended or lost
 * ZooKeeper session, a lease past its renew deadline, a yield, the context closing). Roll back and leave the work to
 * the leader.
 *
 * <p>Thread-safety: immutable.
 */
public class NotLeaderException extends FencingException {

    private static final long serialVersionUID = 1L;

    /** The role whose election this instance does not lead. */
    private final String role;

    /**
     * @param role    the role whose election this instance does not lead
     * @param message what was refused, and why
     */
    public NotLeaderException(String role, String message) {
        super(message);
        this.role = role;
    }

    /**
     * The role whose election this instance does not lead.
     *
     * @return the role
     */
    public String role() {
        return role;
    }
}
