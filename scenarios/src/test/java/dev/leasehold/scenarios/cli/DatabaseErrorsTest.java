package dev.leasehold.scenarios.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each way a first database connection fails, tried for real through the program, reads as one line that says what to do. */
class DatabaseErrorsTest {

    @Test
    void aWrongPasswordSaysTheDatabaseRefusedTheCredentials(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        try (Connection c = DriverManager.getConnection(url, "owner", "right")) {
            assertThat(c.isValid(5)).isTrue();
        }
        Program program = Program.run("inspect", "--jdbc", url, "--user", "owner", "--password", "wrong");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().lines()).as(program.all()).hasSize(1);
        assertThat(program.err())
                .as(program.all())
                .startsWith("error: the database at " + url + " refused the credentials for user 'owner'")
                .contains("check --user and --password")
                .doesNotContain("cannot reach", "wrong");
    }

    /** Issue 42: a password can come from a file (or LEASEHOLD_JDBC_PASSWORD) instead of the command line. */
    @Test
    void aPasswordFileTakesThePlaceOfPassword(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        try (Connection c = DriverManager.getConnection(url, "owner", "right")) {
            assertThat(c.isValid(5)).isTrue();
        }
        Path right = Files.writeString(dir.resolve("right.txt"), "right\n");
        Path wrong = Files.writeString(dir.resolve("wrong.txt"), "wrong\n");
        Program refused = Program.run("inspect", "--jdbc", url, "--user", "owner", "--password-file", wrong.toString());
        assertThat(refused.err()).as(refused.all()).contains("refused the credentials");
        Program accepted =
                Program.run("inspect", "--jdbc", url, "--user", "owner", "--password-file", right.toString());
        assertThat(accepted.err()).as(accepted.all()).doesNotContain("refused the credentials");
        Program both = Program.run(
                "inspect", "--jdbc", url, "--user", "owner", "--password", "x", "--password-file", right.toString());
        assertThat(both.exitCode()).as(both.all()).isEqualTo(2);
        assertThat(both.err()).as(both.all()).contains("not both");
    }

    @Test
    void anUnknownHostIsNamedAsSuch() {
        Program program = Program.run(
                "inspect", "--jdbc", "jdbc:postgresql://nonexistent.invalid/db", "--user", "u", "--password", "p");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().lines()).as(program.all()).hasSize(1);
        assertThat(program.err())
                .as(program.all())
                .startsWith("error: cannot resolve the database host nonexistent.invalid")
                .contains("check the host name in --jdbc");
    }

    @Test
    void aMysqlUrlSaysWhichDriverToAdd() {
        Program program = Program.run("inspect", "--jdbc", "jdbc:mysql://127.0.0.1:1/db");
        assertThat(program.exitCode()).as(program.all()).isEqualTo(2);
        assertThat(program.err().lines()).as(program.all()).hasSize(1);
        assertThat(program.err())
                .as(program.all())
                .startsWith("error: no JDBC driver for jdbc:mysql: URLs")
                .contains("com.mysql:mysql-connector-j", "jdbc:mariadb://")
                .doesNotContain("No suitable driver");
    }

    @Test
    void aPasswordInTheUrlIsNeverPrinted() {
        Program program = Program.run(
                "inspect", "--jdbc", "jdbc:postgresql://nonexistent.invalid/db?user=u&password=s3cret&ssl=false");
        assertThat(program.err()).as(program.all()).doesNotContain("s3cret").contains("password=***&ssl=false");
        assertThat(DatabaseErrors.redact("jdbc:mariadb://app:s3cret@db.example/x"))
                .isEqualTo("jdbc:mariadb://app:***@db.example/x");
        assertThat(DatabaseErrors.redact("jdbc:sqlserver://h;user=u;password=s3cret;db=x"))
                .isEqualTo("jdbc:sqlserver://h;user=u;password=***;db=x");
        assertThat(DatabaseErrors.redact("jdbc:postgresql://host/db")).isEqualTo("jdbc:postgresql://host/db");
    }

    /**
     * Issue 42: {@code bench} printed the driver's "No suitable driver found for jdbc:postgres://...password=..."
     * as it was, and {@code --verbose} printed the stack trace's causes unmasked.
     */
    @Test
    void benchAndVerboseStackTracesNeverPrintAPassword() {
        Program bench = Program.run(
                "bench", "fenced-write", "--quick", "--jdbc", "jdbc:postgres://db/app?user=app&password=S3cretPW");
        assertThat(bench.exitCode()).as(bench.all()).isNotZero();
        assertThat(bench.all()).as(bench.all()).doesNotContain("S3cretPW").contains("password=***");

        Program verbose = Program.run(
                "run",
                "stale-leader",
                "--verbose",
                "--jdbc",
                "jdbc:postgres://u:pa/S3cretPW@db/app?password1=S3cretPW");
        assertThat(verbose.exitCode()).as(verbose.all()).isNotZero();
        assertThat(verbose.all()).as(verbose.all()).doesNotContain("S3cretPW").contains("***");
    }
}
