package dev.leasehold.scenarios.ops;

/**
 * A value read from the store or from ZooKeeper, fit for a terminal: every control character escaped ({@code \n},
 * {@code \u001b}), so a name with a line break cannot forge a line of {@code inspect}'s output and an escape
 * sequence cannot drive the operator's terminal. Stateless, thread-safe.
 */
final class Printable {
    private Printable() {}

    static String escape(String value) {
        if (value == null || value.chars().noneMatch(Character::isISOControl)) {
            return value;
        }
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
