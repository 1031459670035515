package dev.leasehold.spring.internal;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The context's Curator client for beans that work without Curator too. Curator's dependencies are optional: a bean
 * method whose signature names {@code CuratorFramework} (an {@code ObjectProvider<CuratorFramework>} parameter
 * included) fails on a class path without it ({@code TypeNotPresentException}) whatever the application chose, so such
 * methods ask here and keep the client as an {@code Object} until they use it.
 *
 * <p>Thread-safety: stateless.
 */
public final class OptionalCurator {

    private OptionalCurator() {}

    /** @return whether Curator is on the starter's class path */
    public static boolean onClassPath() {
        return ClassUtils.isPresent(
                "org.apache.curator.framework.CuratorFramework", OptionalCurator.class.getClassLoader());
    }

    /**
     * The context's Curator client, when there is exactly one.
     *
     * @param beans the bean factory
     * @return a {@code CuratorFramework}, or {@code null} (none, several, or Curator is not on the class path)
     */
    public static Object uniqueClient(BeanFactory beans) {
        return onClassPath() ? beans.getBeanProvider(CuratorFramework.class).getIfUnique() : null;
    }
}
