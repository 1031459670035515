package dev.leasehold.store;

import java.time.Instant;

/** A batch as stored: {@code status} is {@code pending}, {@code processing} or {@code done}. */
public record BatchState(String batchId, String status, String owner, long fence, Instant leaseUntil, String result) {}
