package dev.leasehold.store.internal;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per resource, the token one gate last saw pass and commit, so that the same token again can take the short path (a
 * check that the mark still EQUALS it, and no history row). Only a hint: the short path's check is what decides, and
 * a mark that is no longer equal (a higher token came, or another gate re-based it lower) sends the write down the
 * full path, which records the raise. Bounded: beyond {@value #LIMIT} resources an arbitrary one is forgotten, which
 * costs that resource one locking read on its next write. Thread-safe.
 */
public final class PassedTokens {

    /** Resources remembered at most. */
    public static final int LIMIT = 10_000;

    private final Map<String, Long> passed = new ConcurrentHashMap<>();
    private final int limit;

    public PassedTokens() {
        this(LIMIT);
    }

    PassedTokens(int limit) {
        this.limit = limit;
    }

    /** Whether {@code token} is the last token seen to pass for {@code resource}. */
    public boolean seen(String resource, long token) {
        Long last = passed.get(resource);
        return last != null && last == token;
    }

    /** After a commit: {@code token} passed for {@code resource}. */
    public void passed(String resource, long token) {
        Long last = passed.get(resource);
        if (last != null && last >= token) {
            return; // the common case, a leader's writes: a read, no write to the map (threads of one resource
            // would otherwise all lock the same bin, once per write)
        }
        passed.merge(resource, token, Math::max);
        if (last == null && passed.size() > limit) {
            Iterator<String> any = passed.keySet().iterator();
            if (any.hasNext()) {
                passed.remove(any.next());
            }
        }
    }

    /** The mark of {@code resource} may have moved in a way this gate did not see (a re-base, say): forget it. */
    public void forget(String resource) {
        passed.remove(resource);
    }

    /** How many resources are remembered. */
    public int size() {
        return passed.size();
    }
}
