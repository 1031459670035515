package dev.leasehold.store;

/** The databases the fenced store speaks. Detected from {@code DatabaseMetaData} unless set in {@link StoreConfig}. */
public enum Database {
    /** PostgreSQL 12 or later. */
    POSTGRESQL,
    /** H2 2.x. */
    H2,
    /** MariaDB 10.6 or later (InnoDB; tested on 10.11). */
    MARIADB,
    /** MySQL 8.0 or later (InnoDB): the MariaDB dialect, without the statements MySQL lacks. Not tested in CI. */
    MYSQL
}
