package dev.leasehold.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a {@link WithPatroni} test a {@link PatroniCluster} parameter (in {@code @BeforeAll}, {@code @BeforeEach} or a
 * test method): ONE cluster per test class, two members with a curator-test {@code TestingServer} as the DCS, in the
 * mode {@link WithPatroni#synchronous()} names, started at the first parameter that asks for it (a Patroni start costs
 * seconds) and stopped, its files deleted, when the class is done. A test that changes the mode ({@link
 * PatroniCluster#setSynchronous}) changes it for the rest of the class. Thread-safe (JUnit's store computes it once).
 */
public final class PatroniClusterResolver implements ParameterResolver, AfterAllCallback {

    /** Made by JUnit. */
    public PatroniClusterResolver() {}

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == PatroniCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        ExtensionContext classContext = classContext(context);
        WithPatroni settings = classContext.getRequiredTestClass().getAnnotation(WithPatroni.class);
        boolean synchronous = settings != null && settings.synchronous();
        return store(classContext)
                .getOrComputeIfAbsent(Shared.class, key -> Shared.start(synchronous), Shared.class)
                .cluster;
    }

    /** Stops the class's cluster, if a parameter started one. */
    @Override
    public void afterAll(ExtensionContext context) {
        Shared shared = store(classContext(context)).remove(Shared.class, Shared.class);
        if (shared != null) {
            shared.close();
        }
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()
                && classContext.getParent().isPresent()) {
            classContext = classContext.getParent().get();
        }
        return classContext;
    }

    private static ExtensionContext.Store store(ExtensionContext classContext) {
        return classContext.getStore(
                ExtensionContext.Namespace.create(PatroniClusterResolver.class, classContext.getRequiredTestClass()));
    }

    /** The class's cluster and its DCS; closed by JUnit with the class's store. */
    private static final class Shared implements AutoCloseable {
        private final Path directory;
        private final TestingServer zookeeper;
        private final PatroniCluster cluster;

        private Shared(Path directory, TestingServer zookeeper, PatroniCluster cluster) {
            this.directory = directory;
            this.zookeeper = zookeeper;
            this.cluster = cluster;
        }

        static Shared start(boolean synchronous) {
            Path directory = null;
            TestingServer zookeeper = null;
            try {
                directory = Files.createTempDirectory("leasehold-patroni-test-");
                zookeeper = new TestingServer();
                PatroniCluster cluster = PatroniCluster.start(
                        new PatroniConfig(zookeeper.getConnectString(), 2, synchronous, directory));
                return new Shared(directory, zookeeper, cluster);
            } catch (Exception e) {
                close(zookeeper);
                delete(directory);
                throw new IllegalStateException("the test class's Patroni cluster did not start: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            cluster.close();
            close(zookeeper);
            delete(directory);
        }

        private static void close(TestingServer zookeeper) {
            if (zookeeper == null) {
                return;
            }
            try {
                zookeeper.close();
            } catch (IOException e) {
                throw new UncheckedIOException("closing the Patroni cluster's ZooKeeper", e);
            }
        }

        private static void delete(Path directory) {
            if (directory == null) {
                return;
            }
            try (Stream<Path> paths = Files.walk(directory)) {
                paths.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temporary directory: left behind if it cannot be read
            }
        }
    }
}
