package dev.leasehold.recipes;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CreateBuilder;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.LoggerFactory;

/**
 * A view of a Curator client that tells the recipe what Curator's own recipe learned, without a request more.
 *
 * <p>Curator's LeaderLatch and LeaderSelector take the client they are given and ask it for builders
 * ({@code create()}, {@code getData()}, {@code getChildren()}). This view hands them the real client's builders,
 * wrapped so that, after Curator's own callback has run, the recipe is shown the same answer (the create answer
 * carries the new node's Stat; the {@code getData} answer that decides leadership carries the leader node's Stat),
 * and so that the path returned by a foreground {@code create} is reported with its Stat. Nothing is added:
 * every call goes to the real client. The one thing asked of Curator's create builder is {@code
 * storingStatIn}: Curator sends every create as {@code create2}, whose answer carries the Stat anyway; it is then
 * copied instead of dropped. The request on the wire is the same. Composition, not a copy of Curator.
 *
 * <p>One thing may be delayed, if the recipe asks: a background delete ({@link Observer#holdDelete}), so that a
 * node of ours is not deleted before the recipe's listeners were told that its grant ended.
 *
 * <p>If a later Curator stops using these builders, the recipes still work: they read what they did not see.
 *
 * <p>Thread-safety: stateless apart from the observer; the observer is called on ZooKeeper's event thread (for
 * answers) or the caller's thread (for a foreground create) and must not block.
 */
final class CuratorTap {

    /** What the recipe is shown. Both methods run on Curator's or ZooKeeper's threads: never block in them. */
    interface Observer {
        /** An answer to a background request, after Curator's own callback ran. */
        void answered(CuratorEvent event);

        /**
         * A foreground create returned {@code path} (namespace-relative, as Curator reports it), with the new node's
         * Stat, or {@code null} if the answer did not carry one (Curator recovered a protected create).
         */
        void created(String path, Stat stat);

        /** {@code true} if Curator's deletes are to be shown to {@link #holdDelete}; by default they are not seen. */
        default boolean seesDeletes() {
            return false;
        }

        /**
         * Curator asks to delete {@code path} in the background (only if {@link #seesDeletes()}). Return {@code true}
         * to hold the delete back: the observer then runs {@code send} later, once (on any thread; it only queues the
         * request). By default every delete goes at once.
         */
        default boolean holdDelete(String path, Runnable send) {
            return false;
        }
    }

    private CuratorTap() {}

    static CuratorFramework tap(CuratorFramework client, Observer observer) {
        return (CuratorFramework) Proxy.newProxyInstance(
                CuratorTap.class.getClassLoader(),
                new Class<?>[] {CuratorFramework.class},
                new ClientHandler(client, observer));
    }

    /** The client itself: Curator's recipes call newWatcherRemoveCuratorFramework() once, then build requests. */
    private record ClientHandler(CuratorFramework client, Observer observer) implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, method, args, client);
            }
            Object result = call(client, method, args);
            if (result instanceof WatcherRemoveCuratorFramework facade
                    && method.getName().equals("newWatcherRemoveCuratorFramework")) {
                return Proxy.newProxyInstance(
                        CuratorTap.class.getClassLoader(),
                        new Class<?>[] {WatcherRemoveCuratorFramework.class},
                        new ClientHandler(facade, observer));
            }
            return switch (method.getName()) {
                case "create" -> {
                    Stat stat = new Stat();
                    if (result instanceof CreateBuilder builder) {
                        builder.storingStatIn(stat); // sets a field of this builder: the chain goes on from result
                    }
                    yield wrap(result, stat, null, observer);
                }
                case "delete" -> observer.seesDeletes() ? wrap(result, null, new DeleteChain(), observer) : result;
                case "getData", "getChildren" -> wrap(result, null, null, observer);
                default -> result;
            };
        }
    }

    /** What a delete chain asked so far: only a background delete may be held back (nobody waits for it). */
    private static final class DeleteChain {
        volatile boolean background;
    }

    /**
     * Any step of a builder chain: the same step on the real builder, with background callbacks observed.
     * {@code createStat} is non-null for a create chain: where Curator copies the new node's Stat; {@code delete} is
     * non-null for a delete chain.
     */
    private record BuilderHandler(Object builder, Stat createStat, DeleteChain delete, Observer observer)
            implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, method, args, builder);
            }
            if (args != null) {
                for (int i = 0; i < args.length; i++) {
                    if (args[i] instanceof BackgroundCallback callback) {
                        args[i] = observed(callback);
                    }
                }
            }
            if (delete != null) {
                if (method.getName().equals("inBackground")) {
                    delete.background = true;
                } else if (delete.background
                        && method.getName().equals("forPath")
                        && args != null
                        && args.length == 1
                        && args[0] instanceof String path
                        && observer.holdDelete(path, () -> sendLater(builder, method, args, path))) {
                    return null; // a background delete's forPath returns nothing
                }
            }
            Object result = call(builder, method, args);
            if (isBuilder(result)) {
                return wrap(result, createStat, delete, observer);
            }
            if (createStat != null
                    && result instanceof String path
                    && method.getName().equals("forPath")) {
                observer.created(path, createStat.getCzxid() != 0 ? createStat : null);
            }
            return result;
        }

        private BackgroundCallback observed(BackgroundCallback callback) {
            return (client, event) -> {
                try {
                    callback.processResult(client, event);
                } finally {
                    observer.answered(event);
                }
            };
        }
    }

    /** Sends a held background delete: only queues it (Curator retries a guaranteed delete itself). */
    private static void sendLater(Object builder, Method method, Object[] args, String path) {
        try {
            call(builder, method, args);
        } catch (Throwable e) {
            LoggerFactory.getLogger(CuratorTap.class)
                    .warn("deleting {} failed; the node goes with its session", path, e);
        }
    }

    /** Curator's builders live in its imps package; answers (paths, Stats, data, lists) are never wrapped. */
    private static boolean isBuilder(Object result) {
        return result != null && result.getClass().getName().startsWith("org.apache.curator.framework.imps.");
    }

    /** A builder seen through every public interface it implements, whatever the step's declared (erased) type. */
    private static Object wrap(Object builder, Stat createStat, DeleteChain delete, Observer observer) {
        if (!isBuilder(builder)) {
            return builder;
        }
        try {
            return Proxy.newProxyInstance(
                    CuratorTap.class.getClassLoader(),
                    PUBLIC_INTERFACES.get(builder.getClass()),
                    new BuilderHandler(builder, createStat, delete, observer));
        } catch (IllegalArgumentException e) {
            return builder; // interfaces a proxy cannot combine: this request goes unobserved, the recipe reads instead
        }
    }

    private static final ClassValue<Class<?>[]> PUBLIC_INTERFACES = new ClassValue<>() {
        @Override
        protected Class<?>[] computeValue(Class<?> type) {
            Set<Class<?>> found = new LinkedHashSet<>();
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                collect(c.getInterfaces(), found);
            }
            return found.toArray(new Class<?>[0]);
        }

        private void collect(Class<?>[] interfaces, Set<Class<?>> found) {
            for (Class<?> i : interfaces) {
                if (Modifier.isPublic(i.getModifiers())) {
                    found.add(i);
                }
                collect(i.getInterfaces(), found);
            }
        }
    };

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Object objectMethod(Object proxy, Method method, Object[] args, Object target) throws Throwable {
        return switch (method.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            default -> "tapped " + target;
        };
    }
}
