package dev.leasehold.store.internal;

import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Reads SQL text that a fenced work sends through its guarded connection, and finds the statements that would end
 * the gate's transaction (issue 21, defect 2): {@code COMMIT}, {@code ROLLBACK} (not {@code ROLLBACK TO}),
 * {@code BEGIN}, {@code START TRANSACTION}, {@code END}, {@code ABORT}, {@code XA}, {@code PREPARE TRANSACTION},
 * {@code SET autocommit} on every database; and where DDL commits by itself (H2, MariaDB, MySQL) the statements that
 * do: {@code CREATE}, {@code ALTER}, {@code DROP}, {@code TRUNCATE}, {@code RENAME}, {@code GRANT}, {@code REVOKE},
 * {@code LOCK}, {@code UNLOCK}, {@code ANALYZE}, {@code OPTIMIZE}, {@code REPAIR}, {@code FLUSH}, {@code COMMENT},
 * {@code CHECKPOINT}, {@code RUNSCRIPT}, {@code SHUTDOWN}, {@code BACKUP}, {@code INSTALL}, {@code UNINSTALL},
 * {@code CACHE}.
 *
 * <p>Conservative by design: the text is cut at EVERY {@code ;}, even one inside a literal, and the first word of
 * each piece is read after leading blanks, parentheses and comments ({@code --}, {@code #}, {@code /* *}{@code /};
 * MariaDB's executable {@code /*!} comments are read as code). A literal that holds {@code "; commit"} is refused
 * too: pass values as parameters. Not a parser: a stored procedure that commits ({@code CALL}) passes here, and the
 * gate's check that its transaction is still the one committing is the backstop. Stateless, thread-safe.
 */
public final class TransactionControl {

    private static final Set<String> ANYWHERE = Set.of("COMMIT", "ROLLBACK", "BEGIN", "START", "END", "ABORT", "XA");
    private static final Set<String> IMPLICIT_COMMIT = Set.of(
            "CREATE",
            "ALTER",
            "DROP",
            "TRUNCATE",
            "RENAME",
            "GRANT",
            "REVOKE",
            "LOCK",
            "UNLOCK",
            "ANALYZE",
            "OPTIMIZE",
            "REPAIR",
            "FLUSH",
            "COMMENT",
            "CHECKPOINT",
            "RUNSCRIPT",
            "SHUTDOWN",
            "BACKUP",
            "INSTALL",
            "UNINSTALL",
            "CACHE");
    private static final Set<String> DML = Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH");

    private TransactionControl() {}

    /**
     * The first statement in {@code sql} that would end the transaction, as its first words, or empty.
     *
     * @param ddlCommits whether DDL commits by itself on this database (H2, MariaDB, MySQL)
     */
    public static Optional<String> find(String sql, boolean ddlCommits) {
        if (oneDmlStatement(sql)) {
            return Optional.empty(); // the common case, read without cutting the text into words
        }
        String[] words = firstPiece(sql, w -> endsTransaction(w, ddlCommits));
        if (words == null) {
            return Optional.empty();
        }
        return Optional.of((words[0] + " " + (words.length > 1 ? words[1] : "")).trim());
    }

    private static boolean endsTransaction(String[] words, boolean ddlCommits) {
        String first = words[0];
        String second = words.length > 1 ? words[1] : "";
        String third = words.length > 2 ? words[2] : "";
        boolean toSavepoint = first.equals("ROLLBACK")
                && (second.equals("TO")
                        || (second.equals("WORK") || second.equals("TRANSACTION")) && third.equals("TO"));
        return ANYWHERE.contains(first) && !toSavepoint
                || first.equals("PREPARE") && second.equals("TRANSACTION")
                || first.equals("SET") && second.equals("AUTOCOMMIT")
                || ddlCommits && IMPLICIT_COMMIT.contains(first);
    }

    /**
     * Whether every statement in {@code sql} is plain DML: its first word is {@code SELECT}, {@code INSERT},
     * {@code UPDATE}, {@code DELETE}, {@code REPLACE} or {@code WITH}. On PostgreSQL, MariaDB and MySQL such a statement
     * cannot end the transaction, not even through a function or trigger it fires (those may not commit: PostgreSQL's
     * "invalid transaction termination", MariaDB's error 1422), so
     * the gate need not mark its transaction before it ({@link TxDialect#dmlKeepsTransaction()}). Cut at every
     * {@code ;} like {@link #find}; empty pieces are skipped; null or blank is not plain DML.
     */
    public static boolean plainDml(String sql) {
        return firstPiece(sql, w -> !DML.contains(w[0])) == null && firstPiece(sql, w -> true) != null;
    }

    /**
     * Whether {@code sql} holds no {@code ;} and its first word ({@link #firstWords}'s first) is plain DML: then
     * {@link #find} finds nothing, as none of those words ends a transaction. Reads the text in place.
     */
    private static boolean oneDmlStatement(String sql) {
        if (sql == null || sql.indexOf(';') >= 0) {
            return false;
        }
        int start = skip(sql, 0, sql.length());
        int end = start;
        while (end < sql.length() && isWordChar(sql.charAt(end))) {
            end++;
        }
        for (String word : DML) {
            if (end - start == word.length() && sql.regionMatches(true, start, word, 0, word.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The first words of the first piece of {@code sql} (cut at every {@code ;}, empty pieces skipped) that {@code
     * match} accepts, or null (also for null SQL).
     */
    private static String[] firstPiece(String sql, Predicate<String[]> match) {
        if (sql == null) {
            return null;
        }
        int start = 0;
        while (start <= sql.length()) {
            int end = sql.indexOf(';', start);
            if (end < 0) {
                end = sql.length();
            }
            String[] words = firstWords(sql, start, end);
            start = end + 1;
            if (words.length > 0 && match.test(words)) {
                return words;
            }
        }
        return null;
    }

    /** Up to three upper-case words at the start of {@code sql[from, to)}, after blanks, parentheses and comments. */
    private static String[] firstWords(String sql, int from, int to) {
        int i = skip(sql, from, to);
        String[] words = new String[3];
        int n = 0;
        while (n < 3) {
            int wordStart = i;
            while (i < to && isWordChar(sql.charAt(i))) {
                i++;
            }
            if (i == wordStart) {
                break;
            }
            words[n++] = sql.substring(wordStart, i).toUpperCase(Locale.ROOT);
            while (i < to && !isWordChar(sql.charAt(i))) {
                i++;
            }
        }
        return n == 3 ? words : java.util.Arrays.copyOf(words, n);
    }

    private static boolean isWordChar(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_';
    }

    /** The index of the first character of {@code text[from, to)} after blanks, parentheses and comments. */
    private static int skip(String text, int from, int to) {
        int i = from;
        while (i < to) {
            char c = text.charAt(i);
            if (Character.isWhitespace(c) || c == '(') {
                i++;
            } else if (text.startsWith("/*!", i)) {
                i += 3;
                while (i < to && Character.isDigit(text.charAt(i))) {
                    i++; // a version number: the code follows
                }
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                i = end < 0 || end + 2 > to ? to : end + 2;
            } else if (text.startsWith("--", i) || c == '#') {
                int end = text.indexOf('\n', i);
                i = end < 0 || end + 1 > to ? to : end + 1;
            } else {
                break;
            }
        }
        return i;
    }
}
