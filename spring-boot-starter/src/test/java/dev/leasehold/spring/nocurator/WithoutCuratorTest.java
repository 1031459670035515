package dev.leasehold.spring.nocurator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.testkit.ClassPaths;
import java.net.URLClassLoader;
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
        Thread self = Thread.currentThread();
        ClassLoader before = self.getContextClassLoader();
        try (URLClassLoader loader =
                new URLClassLoader(ClassPaths.without("curator-", "zookeeper"), ClassLoader.getPlatformClassLoader())) {
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
