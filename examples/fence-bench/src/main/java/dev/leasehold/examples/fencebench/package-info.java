/**
 * What {@code @Fenced} costs a Spring Boot service: a JPA {@code @Transactional} save and a {@code JdbcTemplate}
 * insert, plain and fenced side by side on one resource, on PostgreSQL (issue 43, section 5). Run
 * {@link dev.leasehold.examples.fencebench.FenceBenchMain}; the rows and how to read them are in docs/performance.md.
 */
package dev.leasehold.examples.fencebench;
