package dev.leasehold.store.internal;

/**
 * What a store check returns when it also marked the transaction (see {@link TxDialect#identityExpression()}): the
 * transaction's identity, which {@link Jdbc#inTransaction(String, Jdbc.Body, Jdbc.Work)} then compares before the
 * commit instead of reading it with a statement of its own.
 *
 * @param identity the transaction's identity, as {@link TxDialect#markTransaction()} would answer it
 */
public record CheckMark(Object identity) {}
