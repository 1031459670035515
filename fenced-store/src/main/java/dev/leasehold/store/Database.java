package dev.leasehold.store;

/** The databases the fenced store speaks. Detected from {@code DatabaseMetaData} unless set in {@link StoreConfig}. */
public enum Database {
    /** PostgreSQL 12 or later. */
    POSTGRESQL,
    /** H2 2.x. */
    H2
}
