package dev.leasehold.spring.locks;

import dev.leasehold.recipes.FencedMutex;
import dev.leasehold.recipes.FencingToken;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.Stat;

/**
 * Not API: holds on ZooKeeper, a {@link FencedMutex} per key on {@code root + "/" + key} (token = the czxid of the
 * hold's node). A hold stands while the mutex says so (it ends at once on SUSPENDED or LOST); a re-entrant {@code
 * tryLock} also reads the hold's node (no watch) to check it is still there and still the hold's, which Curator's
 * mutex never does on re-entry (CURATOR-206: a holder is not told its node went).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ZookeeperLockStore implements LockStore {

    private final CuratorFramework client;
    private final String root;
    private final String participantId =
            "lock-registry-" + ProcessHandle.current().pid();
    private final Map<String, FencedMutex> mutexes = new ConcurrentHashMap<>();

    /**
     * A store under {@code root}.
     *
     * @param client the Curator client
     * @param root   the locks' parent path
     * @throws IllegalArgumentException if {@code client} is null or {@code root} is not an absolute ZooKeeper path
     */
    public ZookeeperLockStore(CuratorFramework client, String root) {
        if (client == null) {
            throw new IllegalArgumentException("client must not be null");
        }
        try {
            PathUtils.validatePath(root);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(
                    "root must be an absolute ZooKeeper path such as /app/locks, was '" + root + "': " + e.getMessage(),
                    e);
        }
        if (root.equals("/")) {
            throw new IllegalArgumentException("root must be a path below '/', such as /app/locks");
        }
        this.client = client;
        this.root = root;
    }

    @Override
    public void checkKey(String key) {
        try {
            PathUtils.validatePath(path(key));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "a ZooKeeper lock key must make a valid path below " + root + " (no empty"
                            + " segment, no '.' or '..', no control characters), was '"
                            + key.replaceAll("\\p{Cntrl}", "?")
                            + "'",
                    e);
        }
    }

    @Override
    public void checkTtl(Duration ttl) {
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive, was " + ttl
                    + " (ZooKeeper does not use it: a hold lasts while the session does)");
        }
    }

    @Override
    public Duration defaultTtl() {
        return Duration.ofDays(365);
    }

    @Override
    public Hold acquire(String key, Duration ttl, long timeoutNanos) throws InterruptedException {
        FencedMutex mutex = mutexes.computeIfAbsent(key, k -> new FencedMutex(client, path(k), participantId));
        try {
            Optional<FencingToken> token =
                    timeoutNanos < 0 ? Optional.of(mutex.acquire()) : mutex.acquire(Duration.ofNanos(timeoutNanos));
            return token.map(t -> new ZkHold(mutex, t)).orElse(null);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("locking '" + key + "' at " + path(key) + " failed: " + e, e);
        }
    }

    @Override
    public boolean stands(Hold hold) {
        ZkHold h = (ZkHold) hold;
        return h.mutex.currentToken().filter(h.fencingToken::equals).isPresent() && h.mutex.isOwnedByCurrentThread();
    }

    @Override
    public boolean verify(Hold hold, Duration ttl) {
        if (!stands(hold)) {
            return false;
        }
        ZkHold h = (ZkHold) hold;
        try {
            // no watch is left: a plain read of the node's Stat, by its full path (the token's includes the namespace)
            Stat stat = client.usingNamespace(null).checkExists().forPath(h.fencingToken.path());
            return stat != null && stat.getCzxid() == h.fencingToken.value() && stands(hold);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return false;
        }
    }

    @Override
    public boolean release(Hold hold) {
        ZkHold h = (ZkHold) hold;
        boolean stood = stands(hold);
        try {
            h.mutex.release(); // never throws for a loss; removes the node if it is still there
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("releasing " + h.mutex + " failed: " + e, e);
        }
        return stood;
    }

    @Override
    public void forget(String key) {
        FencedMutex mutex = mutexes.remove(key);
        if (mutex != null) {
            mutex.close();
        }
    }

    @Override
    public String describe() {
        return "zookeeper " + root + " on " + client.getZookeeperClient().getCurrentConnectionString();
    }

    private String path(String key) {
        return root + "/" + key;
    }

    /** A ZooKeeper hold: the mutex and the token it gave. */
    private record ZkHold(FencedMutex mutex, FencingToken fencingToken) implements Hold {
        @Override
        public long token() {
            return fencingToken.value();
        }
    }
}
