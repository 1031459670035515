package dev.leasehold.scenarios.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Issue 42: the H2 TCP server the program starts for its child JVMs ({@code run real-pause} and others) was started
 * with {@code -ifNotExists}: any local process could open a database of its own there, as its administrator, and run
 * Java code inside the program with {@code CREATE ALIAS}. A second local connection is now refused unless it names
 * the run's database and brings its random password.
 */
class EnvH2ServerTest {

    @Test
    void aSecondLocalConnectionToTheProgramsH2ServerIsRefused() throws Exception {
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        try (Env env = Env.start(Env.Settings.embedded(out))) {
            String url = env.jdbcUrlForChildren("real-pause");
            assertThat(url).startsWith("jdbc:h2:tcp://127.0.0.1:");
            String server = url.substring(0, url.indexOf("/mem:"));

            assertThatThrownBy(() -> DriverManager.getConnection(server + "/mem:intruder", "sa", "sa")
                            .close())
                    .as("a database of the caller's own cannot be created")
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> DriverManager.getConnection(server + "/~/intruder", "sa", "sa")
                            .close())
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> DriverManager.getConnection(url, "sa", "").close())
                    .as("the run's database without its credentials")
                    .isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> DriverManager.getConnection(url, env.user(), "wrong")
                            .close())
                    .isInstanceOf(SQLException.class);
            try (Connection child = DriverManager.getConnection(url, env.user(), env.password())) {
                assertThat(child.isValid(5))
                        .as("a child with the credentials gets in")
                        .isTrue();
            }
        }
    }
}
