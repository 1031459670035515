package dev.leasehold.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where an installed Apache ZooKeeper server comes from: Debian's {@code zookeeper} package (3.8 on Debian 12), whose
 * {@code /etc/zookeeper/conf/environment} names the server's class path and main class. {@link ProcessEnsemble} runs
 * its servers with this JVM's {@code java}.
 *
 * <p>The environment variable {@value #ENV} overrides the environment file's location; CI sets it to say "the
 * package must be there", so that a test fails rather than skips (see {@link #require()}).
 *
 * @param classPath the server's class path (the package's jars and its configuration directory)
 * @param mainClass the server's main class, {@code org.apache.zookeeper.server.quorum.QuorumPeerMain}
 * @param source    the file both were read from
 */
public record ZooKeeperPackage(String classPath, String mainClass, Path source) {

    /** The environment variable naming the package's environment file; set in CI. */
    public static final String ENV = "LEASEHOLD_TEST_ZOOKEEPER";

    /** Debian's environment file of the {@code zookeeper} package. */
    public static final Path DEBIAN_ENVIRONMENT = Path.of("/etc/zookeeper/conf/environment");

    /** What a test prints when it skips: how to get the package. */
    public static final String HINT = "ZooKeeper server processes need Debian's zookeeper package: run .ci/zookeeper"
            + " install as root (or apt-get install zookeeper); " + ENV + " names its environment file";

    /**
     * @param classPath the server's class path
     * @param mainClass the server's main class
     * @param source    where they were read from
     * @throws IllegalArgumentException if any is null or blank
     */
    public ZooKeeperPackage {
        if (classPath == null || classPath.isBlank() || mainClass == null || mainClass.isBlank() || source == null) {
            throw new IllegalArgumentException("a ZooKeeper package needs a class path, a main class and a source");
        }
    }

    /**
     * The installed package, read from {@value #ENV}'s file or else {@link #DEBIAN_ENVIRONMENT}.
     *
     * @return the package, or empty if neither file exists (or {@code bash} is missing to read it)
     * @throws IllegalStateException if the file exists but names no class path, or names jars that are missing
     */
    public static Optional<ZooKeeperPackage> find() {
        String given = System.getenv(ENV);
        Path file = given == null || given.isBlank() ? DEBIAN_ENVIRONMENT : Path.of(given);
        if (!Files.isRegularFile(file) || !new File("/bin/bash").canExecute()) {
            return Optional.empty();
        }
        String classPath = read(file, "CLASSPATH");
        String main = read(file, "ZOOMAIN");
        if (classPath.isBlank()) {
            throw new IllegalStateException(file + " names no CLASSPATH: is the zookeeper package complete?");
        }
        boolean hasServer = false;
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.endsWith(".jar") && !Files.exists(Path.of(entry))) {
                throw new IllegalStateException(file + " names " + entry + ", which is missing: reinstall zookeeper");
            }
            hasServer |= entry.contains("zookeeper") && entry.endsWith(".jar");
        }
        if (!hasServer) {
            throw new IllegalStateException(file + "'s CLASSPATH has no zookeeper jar: " + classPath);
        }
        return Optional.of(new ZooKeeperPackage(
                classPath, main.isBlank() ? "org.apache.zookeeper.server.quorum.QuorumPeerMain" : main, file));
    }

    /**
     * The package, when a test must have it: empty (skip) if it is absent and {@value #ENV} is not set.
     *
     * @return the package, or empty if it is absent and nobody said it must be there
     * @throws IllegalStateException if {@value #ENV} is set (as in CI) and the package cannot be read
     */
    public static Optional<ZooKeeperPackage> require() {
        Optional<ZooKeeperPackage> found = find();
        String given = System.getenv(ENV);
        if (found.isEmpty() && given != null && !given.isBlank()) {
            throw new IllegalStateException(ENV + "=" + given + " but no ZooKeeper package is there; " + HINT);
        }
        return found;
    }

    /** Sources the environment file in bash (it is a shell fragment) and prints one variable. */
    private static String read(Path file, String variable) {
        try {
            Process bash = new ProcessBuilder(
                            "/bin/bash",
                            "-c",
                            ". \"$0\" >/dev/null 2>&1; printf %s \"$" + variable + "\"",
                            file.toString())
                    .redirectErrorStream(true)
                    .start();
            byte[] out = bash.getInputStream().readAllBytes();
            if (!bash.waitFor(10, TimeUnit.SECONDS)) {
                bash.destroyForcibly();
                throw new IllegalStateException("reading " + variable + " from " + file + " took over 10 s");
            }
            return new String(out, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + file, e);
        }
    }
}
