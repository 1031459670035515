package dev.leasehold.testkit;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * This JVM's test class path with some jars left out, for a class loader that proves a module works without an
 * optional dependency (Curator, ZooKeeper). Spring's {@code FilteredClassLoader} cannot prove that: it hides classes
 * from conditions only, while the module's own classes still find them through the application class loader.
 */
public final class ClassPaths {

    private ClassPaths() {}

    /**
     * The entries of the test class path (surefire's, else {@code java.class.path}) whose file name starts with none of
     * {@code prefixes}.
     *
     * @param prefixes jar name prefixes to leave out, e.g. {@code "curator-"}, {@code "zookeeper"}
     * @return the URLs, for a {@code URLClassLoader} whose parent is the platform class loader
     */
    public static URL[] without(String... prefixes) {
        List<URL> urls = new ArrayList<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classPath.split(File.pathSeparator)) {
            String file = Path.of(entry).getFileName().toString();
            boolean left = false;
            for (String prefix : prefixes) {
                left |= file.startsWith(prefix);
            }
            if (!left) {
                try {
                    urls.add(Path.of(entry).toUri().toURL());
                } catch (MalformedURLException e) {
                    throw new IllegalStateException("a class path entry is no URL: " + entry, e);
                }
            }
        }
        return urls.toArray(URL[]::new);
    }
}
