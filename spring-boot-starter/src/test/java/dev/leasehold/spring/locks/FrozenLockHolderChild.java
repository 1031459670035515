package dev.leasehold.spring.locks;

import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StaleTokenException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The worker {@link FrozenLockHolderTest} freezes, in a JVM of its own. Arguments: {@code jdbc} or {@code zookeeper},
 * the JDBC URL of the database (lock table and gate), the ZooKeeper connect string ({@code -} for jdbc), the lock key,
 * the ttl or session in ms. It takes the lock from a {@link FencedLockRegistry}, advances the gate with the hold's
 * token and prints {@code LOCKED <token>}; then it waits for {@code write} on stdin (sent while it is stopped: it
 * writes the moment it resumes, as a worker frozen mid-batch would), pushes its batch row through the gate and prints
 * {@code WROTE <token>} or {@code STALE <token>}, then unlocks and prints {@code UNLOCKED} or {@code LOST}.
 */
public final class FrozenLockHolderChild {

    private FrozenLockHolderChild() {}

    /**
     * Runs the worker.
     *
     * @param args backend, JDBC URL, connect string, key, ttl/session (ms)
     * @throws Exception if stdin cannot be read or the lock not taken
     */
    public static void main(String[] args) throws Exception {
        PGSimpleDataSource db = new PGSimpleDataSource();
        db.setURL(args[1]);
        String key = args[3];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[4]));
        CuratorFramework client = null;
        FencedLockRegistry registry;
        if (args[0].equals("zookeeper")) {
            client = CuratorFrameworkFactory.newClient(args[2], (int) ttl.toMillis(), 1_000, new RetryOneTime(100));
            client.start();
            registry = FencedLockRegistry.zookeeper(client, "/locks");
        } else {
            registry = FencedLockRegistry.jdbc(db, ttl);
        }
        FenceGate gate = new FenceGate(db);
        FencedLock lock = registry.obtain(key);
        lock.lock();
        long token = lock.token();
        gate.advance(key, token, "child");
        System.out.println("LOCKED " + token);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.equals("write")) {
            // only "write" is understood
        }
        try {
            gate.write(key, token, tx -> {
                try (PreparedStatement s = tx.prepareStatement("INSERT INTO batch (writer, token) VALUES (?, ?)")) {
                    s.setString(1, "child");
                    s.setLong(2, token);
                    s.executeUpdate();
                }
            });
            System.out.println("WROTE " + token);
        } catch (StaleTokenException e) {
            System.out.println("STALE " + token);
        }
        try {
            lock.unlock();
            System.out.println("UNLOCKED");
        } catch (ConcurrentModificationException e) {
            System.out.println("LOST");
        }
        if (client != null) {
            client.close();
        }
    }
}
