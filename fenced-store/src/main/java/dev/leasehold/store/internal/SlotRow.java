package dev.leasehold.store.internal;

import java.time.Instant;

/**
 * A slot row as a sweep returns it; the slots package builds its public {@code SlotClaim} from it.
 *
 * @param job    the job's name
 * @param slot   the slot's start
 * @param runner who runs it now
 * @param fence  the claim's fence
 */
public record SlotRow(String job, Instant slot, String runner, long fence) {}
