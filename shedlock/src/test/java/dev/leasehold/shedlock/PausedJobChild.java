package dev.leasehold.shedlock;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The replica {@link PausedPastLockAtMostForTest} freezes, in a JVM of its own. Arguments: JDBC URL, lock name,
 * resource, lockAtMostFor in ms. It takes the lock with {@link JdbcFencedLockProvider}, advances the gate with its token
 * and prints {@code LOCKED <token>}; then it waits for a line {@code write} on stdin (sent while it is stopped, so it
 * writes the moment it resumes, as a job frozen mid-run would) and writes its batch row through the gate: it prints
 * {@code WROTE <token>}, or {@code STALE <token>} when the gate refused it, or {@code ERROR <what>}.
 */
public final class PausedJobChild {

    private PausedJobChild() {}

    /**
     * Runs the replica.
     *
     * @param args URL, lock name, resource, lockAtMostFor (ms)
     * @throws Exception if stdin cannot be read
     */
    public static void main(String[] args) throws Exception {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(args[0]);
        ds.setUser("postgres");
        String lockName = args[1];
        String resource = args[2];
        Duration atMost = Duration.ofMillis(Long.parseLong(args[3]));
        JdbcFencedLockProvider provider = new JdbcFencedLockProvider(ds);
        FenceGate gate = new FenceGate(ds);
        Optional<SimpleLock> lock =
                provider.lock(new LockConfiguration(Instant.now(), lockName, atMost, Duration.ZERO));
        if (lock.isEmpty()) {
            System.out.println("ERROR not locked");
            return;
        }
        long token = ((FencedSimpleLock) lock.get()).token();
        gate.advance(resource, token, "child");
        System.out.println("LOCKED " + token);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("write")) {
            // only "write" is understood
        }
        try {
            gate.write(resource, token, tx -> {
                try (PreparedStatement s = tx.prepareStatement("INSERT INTO batch (writer, token) VALUES (?, ?)")) {
                    s.setString(1, "child");
                    s.setLong(2, token);
                    s.executeUpdate();
                }
            });
            System.out.println("WROTE " + token);
        } catch (StaleTokenException e) {
            System.out.println("STALE " + token);
        } catch (RuntimeException e) {
            System.out.println("ERROR " + e);
        } finally {
            lock.get().unlock();
        }
    }
}
