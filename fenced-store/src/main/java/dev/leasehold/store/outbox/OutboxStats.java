package dev.leasehold.store.outbox;

/** How many intents are in each state. Immutable and thread-safe. */
public record OutboxStats(long pending, long sending, long delivered, long dead) {

    /** @return how many intents are not yet delivered nor dead */
    public long outstanding() {
        return pending + sending;
    }
}
