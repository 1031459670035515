/**
 * The fence inside the application's own Spring transactions ({@code @Transactional}, JPA, {@code JdbcTemplate},
 * jOOQ): the auto-configuration of the {@link dev.leasehold.spring.LeaseholdFence} bean and of the advice of
 * {@link dev.leasehold.spring.Fenced}, the backstop each fenced transaction registers, and the one question both
 * election backends answer ("the current grant's token of role R, or none"). The API is at the root package; nothing
 * here is API.
 */
package dev.leasehold.spring.fence;
