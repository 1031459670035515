/**
 * The resource side of fencing over plain JDBC: {@link dev.leasehold.store.FenceGate}, {@link
 * dev.leasehold.store.BatchClaims}, {@link dev.leasehold.store.SlotRuns}, {@link dev.leasehold.store.Outbox} and
 * {@link dev.leasehold.store.FencedSchema}.
 *
 * <p>Only {@code dev.leasehold.store} is exported. {@code dev.leasehold.store.internal} (the dialects, the JDBC
 * helper, the migrations) is public only so that the API package can call it; on the module path it is closed.
 */
module dev.leasehold.store {
    requires transitive java.sql;
    requires org.slf4j;

    exports dev.leasehold.store;
}
