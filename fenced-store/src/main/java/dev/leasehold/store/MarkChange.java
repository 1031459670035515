package dev.leasehold.store;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One change of a resource's fence mark, as {@link FenceGate#history} reads it. Immutable and thread-safe.
 *
 * @param resource      the resource
 * @param kind          raised by a token (an {@code advance} or the first accepted write with a higher token), or
 *                      re-based by an operator
 * @param token         the mark from then on
 * @param previousToken the mark before, empty if the resource had none
 * @param holder        the label given to {@link FenceGate#advance(String, long, String)}, or the operator of a
 *                      re-base; empty if none was given
 * @param reason        the re-base's reason; empty for a raise
 * @param at            when, by the database's clock
 */
public record MarkChange(
        String resource,
        Kind kind,
        long token,
        OptionalLong previousToken,
        Optional<String> holder,
        Optional<String> reason,
        Instant at) {

    /** How the mark changed. Thread-safety: an enum, immutable. */
    public enum Kind {
        /** A higher token passed the fence for the first time. */
        RAISED,
        /** An operator set the mark with {@link FenceGate#rebase}. */
        REBASED
    }
}
