package dev.leasehold.store.internal;

import java.util.List;

/**
 * One numbered step of the fenced store's schema. Versions count up from 1 with no gaps; a step is applied once and
 * recorded in the schema version table. Every statement is written so that running it on a database that already
 * has what it creates changes nothing ({@code IF NOT EXISTS}), which is what lets a database created before schema
 * versions existed (version 0) upgrade cleanly. Immutable and thread-safe.
 */
public record Migration(int version, String description, List<String> statements) {

    public Migration {
        if (version < 1) {
            throw new IllegalArgumentException("migration versions start at 1, was " + version);
        }
        statements = List.copyOf(statements);
    }
}
