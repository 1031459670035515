package dev.leasehold.scenarios.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.testkit.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A child JVM reads back exactly what its parent wrote, and a bad argument list is refused with what was expected. */
class ChildArgsTest {

    private static final ChildArgs ARGS = ChildArgs.of(
            "127.0.0.1:1,127.0.0.1:2/chroot",
            "jdbc:h2:tcp://x/db",
            "lhc_",
            "p-1",
            "/chaos/lhc_latch",
            "chaos-ledger-latch",
            2_000);

    @Test
    void whatTheParentWritesTheChildReadsBack() {
        for (ChildArgs args : new ChildArgs[] {
            ARGS, ARGS.withCredentials("user", "secret").withSelector(true).withFenced(false)
        }) {
            assertThat(ChildArgs.parse(args.toArgs().toArray(String[]::new))).isEqualTo(args);
        }
    }

    /**
     * Issue 42: the password was copied into the child's command line, which {@code ps} shows every local user. It
     * travels in a file only this user can read, which the child deletes once read.
     */
    @Test
    void thePasswordNeverStandsOnTheCommandLine() throws Exception {
        List<String> args = ARGS.withCredentials("user", "S3cretPW").toArgs();
        assertThat(String.join(" ", args)).doesNotContain("S3cretPW");
        Path file = Path.of(args.get(3).substring(ChildJvm.SECRET_FILE.length()));
        assertThat(Files.getPosixFilePermissions(file))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(ChildArgs.parse(args.toArray(String[]::new)).password()).isEqualTo("S3cretPW");
        assertThat(file).as("read once, then gone").doesNotExist();
    }

    @Test
    void noUserTravelsAsADashAndComesBackAsNull() {
        assertThat(ARGS.toArgs().get(2)).isEqualTo("-");
        assertThat(ChildArgs.parse(ARGS.toArgs().toArray(String[]::new)).user()).isNull();
    }

    @Test
    void badArgumentsAreRefusedAtTheDoor() {
        assertThatThrownBy(() -> ChildArgs.parse(new String[] {"zk"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected 11 arguments");
        assertThatThrownBy(() -> ARGS.withCredentials("u", "-"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"-\"");
        String[] wrongKind = ARGS.toArgs().toArray(String[]::new);
        wrongKind[6] = "mutex";
        assertThatThrownBy(() -> ChildArgs.parse(wrongKind))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("selector or latch");
        assertThatThrownBy(() -> ChildArgs.of("zk:1", "jdbc:h2:mem:x", "p_", "id", "no-slash", "r", 1_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("path");
    }
}
