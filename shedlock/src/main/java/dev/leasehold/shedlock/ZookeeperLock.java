package dev.leasehold.shedlock;

import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.support.LockException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A grant of {@link ZookeeperFencedLockProvider}: the lock node's path and the version our last write left it at. Every
 * write is checked against that version, so a lost version check means someone else took the node after our lock
 * expired: then an unlock leaves it alone and an extension returns empty.
 *
 * <p>Thread-safety: thread-safe (single use, see {@link GrantHandle}).
 */
final class ZookeeperLock extends GrantHandle {

    private static final Logger log = LoggerFactory.getLogger(ZookeeperFencedLockProvider.class);

    private final LockNodes nodes;
    private final String path;
    private final int version;
    /** Server time (epoch millis) from which the lock is free unless extended. */
    private final long lockUntil;
    /** Server time before which an unlock does not free it. */
    private final long leastUntil;

    /** @param written the Stat of the write that granted or extended the lock (its mtime is the server's now) */
    ZookeeperLock(HeldToken held, LockNodes nodes, String path, Stat written, long forMillis, long leastMillis) {
        super(held);
        this.nodes = nodes;
        this.path = path;
        this.version = written.getVersion();
        this.lockUntil = LockNode.plus(written.getMtime(), forMillis);
        this.leastUntil = LockNode.plus(written.getMtime(), leastMillis);
    }

    @Override
    void release() {
        if (nodes.write(path, LockNode.release(token(), leastUntil), version).isEmpty()) {
            log.warn(
                    "lock '{}' (token {}) at {} was taken by another holder after it expired, before this unlock: the"
                            + " task ran past lockAtMostFor; its writes with token {} are refused wherever a later"
                            + " holder advanced the fence",
                    name(),
                    token(),
                    path,
                    token());
        }
    }

    @Override
    Optional<GrantHandle> prolong(Duration lockAtMostFor, Duration lockAtLeastFor) {
        long forMillis = LockRequests.millis(lockAtMostFor);
        Optional<Stat> written = nodes.write(path, LockNode.extension(token(), forMillis), version);
        if (written.isEmpty()) {
            log.info(
                    "lock '{}' (token {}) could not be extended: another holder took it after it expired",
                    name(),
                    token());
            return Optional.empty();
        }
        Stat stat = written.get();
        if (stat.getMtime() >= lockUntil) {
            // The lock had expired (server time) before this write; nobody had taken it, but an expired lock is not
            // extended: hand it back, free from now.
            try {
                nodes.write(path, LockNode.release(token(), 0), stat.getVersion());
            } catch (LockException e) {
                log.warn(
                        "lock '{}' (token {}): could not hand back an expired lock after a late extension; it stays"
                                + " held until {} ms after the extension: {}",
                        name(),
                        token(),
                        forMillis,
                        e.getMessage());
            }
            log.info("lock '{}' (token {}) could not be extended: it had expired", name(), token());
            return Optional.empty();
        }
        return Optional.of(
                new ZookeeperLock(held(), nodes, path, stat, forMillis, LockRequests.millis(lockAtLeastFor)));
    }
}
