package dev.leasehold.store.internal;

import dev.leasehold.store.Database;

/** Test access to package-private parts of StoreContext. */
public final class StoreContextAccess {
    private StoreContextAccess() {}

    public static Database map(String productName) {
        return Dialects.fromProductName(productName);
    }
}
