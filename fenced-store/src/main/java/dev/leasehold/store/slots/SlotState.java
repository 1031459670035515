package dev.leasehold.store.slots;

import java.time.Instant;

/** A slot run as stored: {@code status} is {@code running} or {@code done}. Immutable and thread-safe. */
public record SlotState(String job, Instant slot, String runner, String status, long fence, String result) {}
