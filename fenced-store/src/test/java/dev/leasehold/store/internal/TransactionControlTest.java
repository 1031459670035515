package dev.leasehold.store.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue 24: {@link TransactionControl#find} reads one statement of plain DML without cutting it into words; what it
 * finds must not change with that short cut.
 */
class TransactionControlTest {

    @Test
    void oneStatementOfPlainDmlEndsNothing() {
        for (String sql : new String[] {
            "INSERT INTO t (a) VALUES (?)",
            "  update t SET a = 1",
            "/* a comment */ DELETE FROM t",
            "(SELECT 1)",
            "WITH x AS (SELECT 1) SELECT * FROM x",
            "-- a line\nSelect 1"
        }) {
            assertThat(TransactionControl.find(sql, true)).as(sql).isEmpty();
        }
    }

    @Test
    void whatFollowsASemicolonOrHidesInAnExecutableCommentIsStillFound() {
        assertThat(TransactionControl.find("INSERT INTO t VALUES ('x'); COMMIT", false))
                .contains("COMMIT");
        assertThat(TransactionControl.find("/*!COMMIT*/ INSERT INTO t VALUES (1)", false))
                .hasValueSatisfying(found -> assertThat(found).startsWith("COMMIT"));
        assertThat(TransactionControl.find("insert_into_log()", true)).isEmpty();
        assertThat(TransactionControl.find("INSERTED", true)).isEmpty();
        assertThat(TransactionControl.find("CREATE TABLE t (a INT)", true)).contains("CREATE TABLE");
        assertThat(TransactionControl.find("CREATE TABLE t (a INT)", false)).isEmpty();
        assertThat(TransactionControl.find("COMMIT", false)).contains("COMMIT");
    }
}
