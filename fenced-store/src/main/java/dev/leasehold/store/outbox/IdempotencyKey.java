package dev.leasehold.store.outbox;

import dev.leasehold.store.internal.Args;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.Arrays;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The key a receiver uses to recognise a repeated request: derived from the <em>business identity</em> of the
 * work (a batch id; customer + billing cycle), never from a token, a leader, a time or a random number, so that a
 * new leader retrying the same work, or a relay sending the same intent again, produces the same key.
 *
 * <p>{@link #of} joins a namespace and parts with {@code ':'}; a {@code ':'} or {@code '%'} inside a part is
 * escaped ({@code %3A}, {@code %25}), so different parts never make the same key:
 * {@code IdempotencyKey.of("billing", "c42", "2026-11")} is {@code billing:c42:2026-11}. Parts are strings,
 * integral numbers, enums, {@link UUID}s, {@link LocalDate}s or {@link YearMonth}s: types whose text is the same
 * in every JVM (an arbitrary object's {@code toString} may carry an identity hash, a double its rounding).
 *
 * <p>Immutable and thread-safe.
 *
 * @param value the key as sent, 1 to 200 characters
 */
public record IdempotencyKey(String value) {

    private static final Pattern NAMESPACE = Pattern.compile("[a-z][a-z0-9._-]{0,49}");

    /**
     * Checks the key.
     *
     * @param value the key as sent
     * @throws IllegalArgumentException if {@code value} is null, blank or longer than 200 characters
     */
    public IdempotencyKey {
        Args.name(value, "idempotency key");
    }

    /**
     * A key from a namespace (what kind of work: {@code billing}, {@code accounting-push}) and the parts that
     * identify one piece of it.
     *
     * @param namespace what kind of work, e.g. {@code billing}
     * @param parts     what identifies one piece of it, e.g. the customer and the billing cycle
     * @return the key
     * @throws IllegalArgumentException if the namespace does not match {@code [a-z][a-z0-9._-]{0,49}}, there are no
     *                                  parts, a part is null, blank or of an unsupported type, or the key would be
     *                                  longer than 200 characters
     */
    public static IdempotencyKey of(String namespace, Object... parts) {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw new IllegalArgumentException("namespace must match " + NAMESPACE.pattern() + ", was "
                    + (namespace == null ? "null" : "'" + namespace + "'"));
        }
        if (parts == null || parts.length == 0) {
            throw new IllegalArgumentException("an idempotency key needs at least one part after the namespace"
                    + " (the business identity of the work, e.g. customer and billing cycle)");
        }
        String joined = Arrays.stream(parts).map(IdempotencyKey::part).collect(Collectors.joining(":"));
        String key = namespace + ":" + joined;
        if (key.length() > Args.MAX_NAME) {
            throw new IllegalArgumentException("idempotency key must be at most " + Args.MAX_NAME + " characters, was "
                    + key.length() + " ('" + key.substring(0, 40) + "...')");
        }
        return new IdempotencyKey(key);
    }

    private static String part(Object part) {
        String text;
        if (part instanceof CharSequence
                || part instanceof Long
                || part instanceof Integer
                || part instanceof Short
                || part instanceof Byte
                || part instanceof java.math.BigInteger
                || part instanceof UUID
                || part instanceof LocalDate
                || part instanceof YearMonth) {
            text = part.toString();
        } else if (part instanceof Enum<?> constant) {
            text = constant.name();
        } else {
            throw new IllegalArgumentException("an idempotency key part must be a string, an integral number, an"
                    + " enum, a UUID, a LocalDate or a YearMonth (text that is the same in every JVM), was "
                    + (part == null ? "null" : part.getClass().getName()));
        }
        if (text.isBlank()) {
            throw new IllegalArgumentException("an idempotency key part must not be blank");
        }
        return text.replace("%", "%25").replace(":", "%3A");
    }

    @Override
    public String toString() {
        return value;
    }
}
