package dev.leasehold.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Issue 42: every form of credential a JDBC URL or a driver's message can carry is masked, and nothing else. */
class RedactionTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "jdbc:postgres://db/app?user=app&password=S3cretPW | jdbc:postgres://db/app?user=app&password=***",
                "jdbc:postgresql://u:pa/ss@db:5432/app | jdbc:postgresql://u:***@db:5432/app",
                "jdbc:mariadb://db/app?user=a&password1=S3cretPW&password2=Other | "
                        + "jdbc:mariadb://db/app?user=a&password1=***&password2=***",
                "jdbc:sqlserver://db;user=a;password={a;b};encrypt=true | jdbc:sqlserver://db;user=a;password=***;encrypt=true",
                "jdbc:oracle:thin:scott/tiger@db:1521/app | jdbc:oracle:thin:scott/***@db:1521/app",
                "jdbc:h2:tcp://127.0.0.1:9092/chaos;PWD=S3cretPW;LOCK_TIMEOUT=1 | "
                        + "jdbc:h2:tcp://127.0.0.1:9092/chaos;PWD=***;LOCK_TIMEOUT=1",
                "jdbc:postgresql://db/app?sslpassword=S3cretPW | jdbc:postgresql://db/app?sslpassword=***",
            })
    void masksEveryFormOfPassword(String text, String expected) {
        assertThat(Redaction.redact(text)).isEqualTo(expected).doesNotContain("S3cretPW");
    }

    @Test
    void masksInsideLongerTextsSuchAsMessagesAndStackTraces() {
        String message = "java.sql.SQLException: No suitable driver found for jdbc:postgres://db/app?user=app"
                + "&password=S3cretPW\n\tat java.sql/java.sql.DriverManager.getConnection(DriverManager.java:708)";
        assertThat(Redaction.redact(message))
                .doesNotContain("S3cretPW")
                .contains("No suitable driver found for jdbc:postgres://db/app?user=app&password=***\n\tat java.sql");
    }

    @Test
    void leavesUrlsWithoutCredentialsAsTheyAre() {
        for (String plain : new String[] {
            "jdbc:postgresql://db:5432/app?user=app&ssl=true",
            "jdbc:h2:mem:x;DB_CLOSE_DELAY=-1",
            "jdbc:mariadb://127.0.0.1:3306/leasehold_test?user=leasehold",
            "no url here",
        }) {
            assertThat(Redaction.redact(plain)).isEqualTo(plain);
        }
        assertThat(Redaction.redact(null)).isNull();
    }
}
