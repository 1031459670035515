package dev.leasehold.spring.fence;

import dev.leasehold.spring.Fenced;
import dev.leasehold.spring.LeaseholdFence;
import java.lang.reflect.Method;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The advice of {@link Fenced}: the fence check with the method's (else its class's) annotation, then the method.
 * It runs nearest the bean, inside the transaction interceptor ({@link FencedAdvisingPostProcessor}), so the check
 * joins the method's transaction.
 *
 * <p>Thread-safety: thread-safe.
 */
final class FencedInterceptor implements MethodInterceptor {

    private final ObjectProvider<LeaseholdFence> fence;

    FencedInterceptor(ObjectProvider<LeaseholdFence> fence) {
        this.fence = fence;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Fenced fenced = annotation(invocation);
        if (fenced != null) {
            LeaseholdFence checker = fence.getObject();
            if (checker instanceof TransactionFence starter) {
                starter.check(fenced.role(), fenced.value());
            } else if (fenced.role().isEmpty()) {
                checker.check(fenced.value());
            } else {
                throw new IllegalStateException("@Fenced(role = \"" + fenced.role() + "\") needs the starter's"
                        + " LeaseholdFence bean, which knows the elections' roles; the context has " + checker);
            }
        }
        return invocation.proceed();
    }

    private static Fenced annotation(MethodInvocation invocation) {
        Class<?> target = invocation.getThis() == null ? null : AopUtils.getTargetClass(invocation.getThis());
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target);
        Fenced onMethod = AnnotatedElementUtils.findMergedAnnotation(method, Fenced.class);
        if (onMethod != null) {
            return onMethod;
        }
        Class<?> type = target != null ? target : method.getDeclaringClass();
        return AnnotatedElementUtils.findMergedAnnotation(type, Fenced.class);
    }
}
