package dev.leasehold.spring.internal;

import dev.leasehold.store.lease.LeaseElection;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Candidate;

/**
 * The participant ids of one application context's initiators (ZooKeeper's and the database lease's alike).
 *
 * <p>The rule, in order:
 * <ol>
 *   <li>a candidate that names its own id keeps it, unchanged, as Spring Integration's own initiators use {@code
 *       getId()}: {@code new DefaultCandidate("billing-7", "billing")} takes part as {@code billing-7};</li>
 *   <li>a candidate that names none takes this instance's id: {@code leasehold.election.participant-id} if set, else
 *       {@code <host>-<pid>-<8 hex digits>}, made once per application context, so two instances on one host, or
 *       two contexts in one JVM, never share it. "Names none": {@code getId()} is null or blank, or the candidate is
 *       a Spring Integration {@link AbstractCandidate} (a {@code DefaultCandidate}, say) whose id is a random UUID:
 *       what {@code AbstractCandidate} fills in when it is given no id (a random UUID given on purpose is treated
 *       alike; both are unique per instance, and the id used is the one in the logs, {@code info} and meters).</li>
 * </ol>
 * Two candidates of one role in one context with one id are refused at start: for the database lease, two
 * elections with one holder id would both believe they hold the lease.
 *
 * <p>Thread-safety: thread-safe.
 *
 * <p>Not API: public only so that the starter's other packages can share it.
 */
public final class ParticipantIds {

    /** The longest id the database lease accepts as a holder id; ZooKeeper takes it as node data. */
    static final int MAX_LENGTH = 200;

    private final String instanceId;
    /** role, then id: the candidate bean that has it. */
    private final Map<String, Map<String, String>> taken = new HashMap<>();

    /**
     * @param configured {@code leasehold.election.participant-id}, or null for {@code <host>-<pid>-<8 hex digits>}
     */
    ParticipantIds(String configured) {
        this.instanceId = configured != null ? configured : LeaseElection.defaultHolder();
    }

    /** This instance's id: the one a candidate that names none takes. */
    String instanceId() {
        return instanceId;
    }

    /**
     * The participant id of a candidate bean, remembered so that a second candidate of the same role with the same
     * id is refused.
     *
     * @param candidate     the candidate
     * @param candidateName its bean name
     * @return its participant id
     * @throws IllegalArgumentException if another candidate bean of this role has this id
     */
    public synchronized String assign(Candidate candidate, String candidateName) {
        String id = namesItsOwnId(candidate) ? candidate.getId() : instanceId;
        String other = taken.computeIfAbsent(String.valueOf(candidate.getRole()), role -> new HashMap<>())
                .putIfAbsent(id, candidateName);
        if (other != null && !other.equals(candidateName)) {
            throw new IllegalArgumentException("the Candidate beans '" + other + "' and '" + candidateName
                    + "' both take part in role '" + candidate.getRole() + "' as '" + id + "': each needs its own id"
                    + " (give one of them its own id, or use one Candidate per role)");
        }
        return id;
    }

    /** Whether the candidate chose its id (rule 1), rather than leaving it to Spring Integration or to us. */
    static boolean namesItsOwnId(Candidate candidate) {
        String id = candidate.getId();
        if (id == null || id.isBlank()) {
            return false;
        }
        return !(candidate instanceof AbstractCandidate && isRandomUuid(id));
    }

    private static boolean isRandomUuid(String id) {
        try {
            UUID uuid = UUID.fromString(id);
            return uuid.version() == 4 && uuid.toString().equals(id);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The database lease's rules for a holder id, which ZooKeeper's node data also meets.
     *
     * @param id   the id
     * @param what what the id is, named in the message (e.g. a property)
     * @return the id
     * @throws IllegalArgumentException if it is too long, has blanks at either end or control characters
     */
    public static String requireValid(String id, String what) {
        if (id.length() > MAX_LENGTH || !id.equals(id.strip()) || id.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(what + " must be at most " + MAX_LENGTH + " characters, with no blanks"
                    + " at either end and no control characters, was '" + id.replaceAll("\\p{Cntrl}", "?") + "'");
        }
        return id;
    }
}
