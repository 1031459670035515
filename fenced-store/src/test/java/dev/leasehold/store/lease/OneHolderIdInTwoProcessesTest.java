package dev.leasehold.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.testing.SharedPostgres;
import dev.leasehold.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 41 item 4: two processes configured with one explicit holder id. Before the fix both stored the bare id, so a
 * renew ({@code WHERE holder = ? AND generation = ?}) could not tell them apart: whenever the two came to hold one
 * generation, both renewed it and both led with one token. A failover to a standby that lacked the first one's take
 * does exactly that (the take is lost, the generation is granted again: see {@link LeaseElection}'s IMPORTANT note);
 * here the row is set back as such a standby would have it. With a holder stored per election instance, the first
 * one's renew finds the row held by another grant and it hears {@link LeaseLoss#TAKEN_OVER}: one leader.
 *
 * <p>Timeline (two child JVMs, one embedded PostgreSQL 17, holder id {@code worker} in both):
 * <ol>
 *   <li>a leads with token 6 (the row was at 5, expired);</li>
 *   <li>a is frozen ({@code kill -STOP}) well inside its renew deadline (30 s);</li>
 *   <li>the row goes back to generation 5, expired: the failover that lost a's take (simulated);</li>
 *   <li>b starts and takes the lease: token 6 again;</li>
 *   <li>a resumes ({@code kill -CONT}) and renews: it must hear TAKEN_OVER, and never lead beside b.</li>
 * </ol>
 */
@Timeout(120)
class OneHolderIdInTwoProcessesTest {

    private static final String NAME = "billing";
    /** Lease 60 s, renew deadline 30 s, retry 200 ms: a's freeze of a few seconds stays far inside its deadline. */
    private static final List<String> TIMING = List.of("60000", "30000", "200");

    private DataSource db;
    private String url;
    private final List<Child> children = new ArrayList<>();
    private ChildJvm.ExitHook cleanup;

    @BeforeEach
    void database() throws SQLException {
        assumeTrue(ChildJvm.signalsSupported(), "kill -STOP / -CONT not available here");
        db = SharedPostgres.freshDatabase("lease_one_holder");
        url = "jdbc:postgresql://localhost:" + SharedPostgres.port() + "/lease_one_holder";
        FencedSchema.install(db);
        cleanup = ChildJvm.onExit("one-holder-kill-children", () -> children.forEach(c -> c.process.destroyForcibly()));
    }

    @AfterEach
    void stopChildren() throws Exception {
        for (Child c : children) {
            c.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL ends a stopped child too
        }
        if (cleanup != null) {
            cleanup.close();
        }
    }

    @Test
    void oneHolderIdInTwoProcessesNeverLeadsTwiceWithOneToken() throws Exception {
        execute("INSERT INTO leasehold_leases (name, holder, lease_until, generation)" + " VALUES ('" + NAME
                + "', 'earlier', now() - INTERVAL '1 minute', 5)");
        Child a = start("a");
        assertThat(a.next()).isEqualTo("ACQUIRED 6");

        ChildJvm.signal("-STOP", a.process);
        execute("UPDATE leasehold_leases SET generation = 5, lease_until = now() - INTERVAL '1 second'"
                + " WHERE name = '" + NAME + "'"); // the promoted standby's row: a's take is lost
        Child b = start("b");
        assertThat(b.next()).as("b takes the lease the failover gave back").isEqualTo("ACQUIRED 6");

        ChildJvm.signal("-CONT", a.process);
        assertThat(a.next()).as("a's first renew after it resumed").isEqualTo("LOST 6 TAKEN_OVER");
        a.tell("status");
        b.tell("status");
        assertThat(a.next()).isEqualTo("STATUS none");
        assertThat(b.next()).isEqualTo("STATUS 6");
    }

    private Child start(String who) throws IOException {
        List<String> args = new ArrayList<>(List.of(url, "postgres", "", NAME, "worker"));
        args.addAll(TIMING);
        Child child = new Child(who, ChildJvm.start(ElectionChild.class, args));
        children.add(child);
        return child;
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = db.getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.executeUpdate();
        }
    }

    /** A child JVM and the lines it printed. */
    private static final class Child {
        final String who;
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        Child(String who, Process process) {
            this.who = who;
            this.process = process;
            Thread pump = new Thread(
                    () -> {
                        try (BufferedReader in = new BufferedReader(
                                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                            String line;
                            while ((line = in.readLine()) != null) {
                                lines.add(line);
                            }
                        } catch (IOException ignored) {
                            // the child is gone
                        }
                    },
                    "pipe-" + who);
            pump.setDaemon(true);
            pump.start();
        }

        /** The next line, waiting at most 20 s (a JVM start on a loaded machine); "(nothing)" if none came. */
        String next() throws InterruptedException {
            String line = lines.poll(20, TimeUnit.SECONDS);
            return line == null ? "(nothing within 20 s from " + who + ")" : line;
        }

        void tell(String command) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
    }
}
