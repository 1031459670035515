/**
 * The resource side of fencing over plain JDBC, one package per feature: the gate and what every feature shares
 * ({@link dev.leasehold.store.FenceGate}, {@link dev.leasehold.store.FencedSchema}, {@link
 * dev.leasehold.store.StoreConfig}, {@link dev.leasehold.store.StoreListener}) in {@code dev.leasehold.store}; batch
 * claims ({@link dev.leasehold.store.claims.BatchClaims}) in {@code dev.leasehold.store.claims}; slot runs ({@link
 * dev.leasehold.store.slots.SlotRuns}) in {@code dev.leasehold.store.slots}; the outbox ({@link
 * dev.leasehold.store.outbox.Outbox}, {@link dev.leasehold.store.outbox.OutboxRelay}) in {@code
 * dev.leasehold.store.outbox}; leader election on the database ({@link dev.leasehold.store.lease.LeaseElection}) in
 * {@code dev.leasehold.store.lease}.
 *
 * <p>{@code dev.leasehold.store.internal} and its per-database packages (the dialects, the JDBC helper, the
 * migrations) are public only so that the API packages can call them; on the module path they are closed.
 */
module dev.leasehold.store {
    requires transitive java.sql;
    requires org.slf4j;

    exports dev.leasehold.store;
    exports dev.leasehold.store.claims;
    exports dev.leasehold.store.slots;
    exports dev.leasehold.store.outbox;
    exports dev.leasehold.store.lease;
}
