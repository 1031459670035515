package dev.leasehold.spring.nocurator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The starter on a class path without Curator and ZooKeeper (their dependencies are optional): a Spring Boot
 * application with {@code leasehold.election.backend=jdbc} starts, with the store's schema installed, and no lock
 * registry bean (a {@code FencedLockRegistry} needs Curator's classes: its {@code zookeeper} factory names
 * {@code CuratorFramework}, and Spring reads every method of a bean's class). Spring's {@code FilteredClassLoader} cannot show this: it hides classes from the
 * conditions, while the starter's own classes still see Curator through the application class loader. Here every
 * class, the starter's included, comes from a class loader that has no Curator jar (before the fix the context failed
 * with {@code TypeNotPresentException: org.apache.curator.framework.CuratorFramework} from the lock registry's bean
 * method, so {@code backend=jdbc} did not start without Curator).
 */
@Timeout(120)
class WithoutCuratorTest {

    @Test
    void theDatabaseBackendStartsWithoutCuratorOnTheClassPath() throws Exception {
        List<URL> urls = new ArrayList<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (String entry : classPath.split(File.pathSeparator)) {
            String file = Path.of(entry).getFileName().toString();
            if (!file.startsWith("curator-") && !file.startsWith("zookeeper")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        Thread self = Thread.currentThread();
        ClassLoader before = self.getContextClassLoader();
        try (URLClassLoader loader =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Class.forName("org.apache.curator.framework.CuratorFramework", false, loader))
                    .isInstanceOf(ClassNotFoundException.class);
            self.setContextClassLoader(loader);
            Object started = loader.loadClass(WithoutCuratorApplication.class.getName())
                    .getMethod("start", String.class)
                    .invoke(null, "jdbc:h2:mem:starter-without-curator;DB_CLOSE_DELAY=-1");
            assertThat((String) started).isEqualTo("registries 0, token 1");
        } finally {
            self.setContextClassLoader(before);
        }
    }
}
