package dev.leasehold.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Fences a method that runs in a Spring transaction: {@link LeaseholdFence#check(String)} on {@link #value()} runs
 * inside that transaction, before the method's body, with the current grant's token of the context's election (of
 * {@link #role()}'s, when the context has several). On a class: every public method of the bean. A method's annotation
 * wins over its class's.
 *
 * <pre>{@code
 * @Fenced("invoices")
 * @Transactional
 * public void bill(Customer customer) {
 *     invoices.save(new Invoice(customer));   // flushed at commit: still fenced, the lock lasts until then
 * }
 * }</pre>
 *
 * <p>The check always runs inside the transaction interceptor, whatever {@code @EnableTransactionManagement(order)}
 * says: the starter adds its advice nearest the bean, after every other advisor. A method called without an active
 * transaction is refused ({@link IllegalStateException} naming {@code @Transactional}), so is one whose instance does
 * not lead ({@link NotLeaderException}); a stale token marks the transaction rollback-only and throws
 * {@code StaleTokenException}. A {@code REQUIRES_NEW} method called from a fenced one runs in a transaction of its
 * own, which is fenced only if that method is {@code @Fenced} itself. As with {@code @Transactional}, a call from
 * within the same bean ({@code this.bill(...)}) bypasses the proxy and is not fenced.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Fenced {

    /**
     * The fenced resource's name, as in {@code FenceGate}: not blank, at most 200 characters.
     *
     * @return the resource
     */
    String value();

    /**
     * The role (the {@code Candidate}'s) whose current grant's token is checked; needed only when the context has
     * candidates of several roles.
     *
     * @return the role, or {@code ""} for the context's only one
     */
    String role() default "";
}
