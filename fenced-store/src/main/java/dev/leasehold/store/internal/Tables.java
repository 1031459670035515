package dev.leasehold.store.internal;

/** Table names, built from a prefix that {@link dev.leasehold.store.StoreConfig} validated. */
public record Tables(String prefix) {

    public String fence() {
        return prefix + "fence";
    }

    public String fenceRebase() {
        return prefix + "fence_rebase";
    }

    /** Every token that became a resource's mark (re-bases are in {@link #fenceRebase()}). */
    public String fenceHistory() {
        return prefix + "fence_history";
    }

    public String batches() {
        return prefix + "batches";
    }

    public String slotRuns() {
        return prefix + "slot_runs";
    }

    public String outbox() {
        return prefix + "outbox";
    }

    /** One row per named lease ({@code dev.leasehold.store.lease.LeaseElection}): holder, expiry, generation. */
    public String leases() {
        return prefix + "leases";
    }

    /** One row per applied migration: the schema's version is the highest. */
    public String schemaVersion() {
        return prefix + "schema_version";
    }
}
