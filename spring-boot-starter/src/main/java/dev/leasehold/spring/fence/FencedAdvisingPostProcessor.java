package dev.leasehold.spring.fence;

import dev.leasehold.spring.Fenced;
import dev.leasehold.spring.LeaseholdFence;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactory;

/**
 * Adds the {@link Fenced} advice to the beans that carry the annotation (on the class or a method), nearest the bean:
 * appended after every advisor a proxy already has ({@code beforeExistingAdvisors} stays {@code false}), and this
 * post-processor runs after the auto-proxy creator that adds the transaction interceptor (which is ordered first).
 * So the check always runs inside the transaction, whatever order {@code @EnableTransactionManagement} gives the
 * transaction advisor (the shape of Spring's {@code PersistenceExceptionTranslationPostProcessor}). A bean with no proxy
 * yet gets one of its own (a class proxy).
 *
 * <p>Thread-safety: used by the application context's refresh thread.
 */
final class FencedAdvisingPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

    private static final long serialVersionUID = 1L;

    FencedAdvisingPostProcessor() {
        setProxyTargetClass(true);
        setBeforeExistingAdvisors(false);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        ComposablePointcut pointcut = new ComposablePointcut(new AnnotationMatchingPointcut(Fenced.class, true))
                .union(new AnnotationMatchingPointcut(null, Fenced.class, true));
        this.advisor = new DefaultPointcutAdvisor(
                pointcut, new FencedInterceptor(beanFactory.getBeanProvider(LeaseholdFence.class)));
    }
}
