package dev.leasehold.fencedapp;

import dev.leasehold.spring.FencedContext;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;

/** A candidate that only records its grants' tokens, from either backend's context. */
public class Grants extends DefaultCandidate {

    private final BlockingQueue<Long> granted = new LinkedBlockingQueue<>();
    private volatile long current;

    public Grants(String role) {
        super(null, role);
    }

    @Override
    public void onGranted(Context context) {
        long token = ((FencedContext) context).token().value(); // either backend: LeaseContext is a FencedContext
        current = token;
        granted.add(token);
    }

    @Override
    public void onRevoked(Context context) {
        current = 0;
    }

    /** Waits for the next grant's token. */
    public long awaitGrant() throws InterruptedException {
        Long token = granted.poll(60, TimeUnit.SECONDS);
        if (token == null) {
            throw new AssertionError("no grant within 60 s");
        }
        return token;
    }

    /** The current grant's token, 0 if none. */
    public long current() {
        return current;
    }
}
