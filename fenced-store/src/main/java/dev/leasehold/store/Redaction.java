package dev.leasehold.store;

import java.util.regex.Pattern;

/**
 * Masks credentials in any text that may hold a JDBC URL or a driver's message about one: what the store logs, and
 * what the Leasehold program prints (messages, stack traces, the report). Applications may use it for their own
 * logs.
 *
 * <p>What it masks, anywhere in the text, with {@code ***}:
 * <ul>
 *   <li>the value of any parameter whose name contains {@code password}, {@code passwd}, {@code pwd} or
 *       {@code secret}, in any case ({@code password=}, {@code password1=}, {@code PWD=}, {@code sslpassword=}), up to
 *       the next {@code &}, {@code ;}, white space or quote, or a whole braced value ({@code password={a;b}});</li>
 *   <li>the password of a {@code //user:password@host} part, a slash in the password included;</li>
 *   <li>Oracle's {@code user/password@} form ({@code jdbc:oracle:thin:scott/tiger@host}).</li>
 * </ul>
 * User names, hosts, ports and database names stay readable.
 *
 * <p>Thread-safe and stateless.
 */
public final class Redaction {
    /** What a masked credential reads as. */
    public static final String MASK = "***";

    private static final Pattern SECRET_PARAMETER = Pattern.compile(
            "(?i)(\\b[\\w.-]*(?:password|passwd|pwd|secret)[\\w.-]*\\s*=\\s*)(\\{[^}]*}|[^&;\\s\"'<>]*)");
    private static final Pattern USER_INFO = Pattern.compile("(//[^/:@\\s?#]*:)[^@\\s?#]*@");
    private static final Pattern ORACLE = Pattern.compile("(?i)(jdbc:oracle:[a-z]+:[^/@:\\s]+/)[^@\\s]*@");

    private Redaction() {}

    /**
     * @param text any text: a JDBC URL, an exception's message, a stack trace; null stays null
     * @return the text with every credential it recognises masked
     */
    public static String redact(String text) {
        if (text == null) {
            return null;
        }
        String masked = SECRET_PARAMETER.matcher(text).replaceAll("$1" + MASK);
        masked = ORACLE.matcher(masked).replaceAll("$1" + MASK + "@");
        return USER_INFO.matcher(masked).replaceAll("$1" + MASK + "@");
    }
}
