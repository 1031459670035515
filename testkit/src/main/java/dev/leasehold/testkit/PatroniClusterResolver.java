package dev.leasehold.testkit;

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
                .getOrComputeIfAbsent(StandalonePatroni.class, key -> start(synchronous), StandalonePatroni.class)
                .cluster();
    }

    /** Stops the class's cluster, if a parameter started one. */
    @Override
    public void afterAll(ExtensionContext context) {
        StandalonePatroni shared =
                store(classContext(context)).remove(StandalonePatroni.class, StandalonePatroni.class);
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

    private static StandalonePatroni start(boolean synchronous) {
        try {
            return StandalonePatroni.start(synchronous, "leasehold-patroni-test-");
        } catch (Exception e) {
            throw new IllegalStateException("the test class's Patroni cluster did not start: " + e.getMessage(), e);
        }
    }
}
