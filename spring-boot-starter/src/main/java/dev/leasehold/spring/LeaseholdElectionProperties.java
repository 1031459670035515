package dev.leasehold.spring;

import dev.leasehold.spring.internal.ElectionPaths;
import dev.leasehold.spring.internal.ParticipantIds;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code leasehold.election.*} properties that every backend shares: where the candidates' elections take place,
 * one election per role, at {@code root + "/" + role}. Checked when bound, so a bad value fails the application
 * context at start with a message that names the property and what is allowed. The backend and the database lease's
 * timing are {@link LeaseholdLeaseProperties}.
 *
 * <p>Thread-safety: an immutable record.
 *
 * @param root      an absolute ZooKeeper path, e.g. {@code /leasehold/election}
 * @param closeWait how long the context's close waits for a leader's {@code onRevoked}; from 1 ms to 1 h
 * @param progressDeadline unset (the default) or from 1 ms to 1 day: each initiator's leader must call {@link
 *                  FencedContext#progress()} at least this often, or it gives leadership up (cause {@code
 *                  STALLED}) so that another instance leads
 * @param participantId this instance's participant id, for each candidate that names no id of its own; unset (the
 *                  default): {@code <host>-<pid>-<8 hex digits>}, made once per application context, so two
 *                  instances on one host (or two contexts in one JVM) differ; set: non-blank, at most 200
 *                  characters, no blanks at either end, no control characters
 */
@ConfigurationProperties("leasehold.election")
public record LeaseholdElectionProperties(
        @DefaultValue("/leasehold/election") String root,
        @DefaultValue("10s") Duration closeWait,
        Duration progressDeadline,
        String participantId) {

    /**
     * The properties with every default.
     *
     * @return the defaults: root {@code /leasehold/election}, close wait 10 s, no progress deadline, the default
     *         participant id
     */
    public static LeaseholdElectionProperties defaults() {
        return new LeaseholdElectionProperties("/leasehold/election", Duration.ofSeconds(10), null, null);
    }

    /**
     * Checks every value; a blank participant id counts as unset.
     *
     * @param root      the election root
     * @param closeWait the close wait
     * @param progressDeadline the progress deadline, or null for none
     * @param participantId this instance's participant id, or null for the default
     */
    public LeaseholdElectionProperties {
        if (participantId != null && participantId.isBlank()) {
            participantId = null;
        }
        if (participantId != null) {
            ParticipantIds.requireValid(participantId, "leasehold.election.participant-id");
        }
        try {
            ElectionPaths.requireRoot(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("leasehold.election.root: " + e.getMessage(), e);
        }
        PropertyChecks.between(closeWait, Duration.ofMillis(1), Duration.ofHours(1), "leasehold.election.close-wait");
        if (progressDeadline != null) {
            PropertyChecks.between(
                    progressDeadline,
                    Duration.ofMillis(1),
                    Duration.ofDays(1),
                    "leasehold.election.progress-deadline (leave it unset for none)");
        }
    }

    /**
     * A copy with another value.
     *
     * @param root the election root
     * @return a copy with it
     */
    public LeaseholdElectionProperties withRoot(String root) {
        return new LeaseholdElectionProperties(root, closeWait, progressDeadline, participantId);
    }

    /**
     * A copy with another value.
     *
     * @param progressDeadline the progress deadline, or null for none
     * @return a copy with it
     */
    public LeaseholdElectionProperties withProgressDeadline(Duration progressDeadline) {
        return new LeaseholdElectionProperties(root, closeWait, progressDeadline, participantId);
    }

    /**
     * A copy with another value.
     *
     * @param participantId this instance's participant id, or null for the default
     * @return a copy with it
     */
    public LeaseholdElectionProperties withParticipantId(String participantId) {
        return new LeaseholdElectionProperties(root, closeWait, progressDeadline, participantId);
    }
}
