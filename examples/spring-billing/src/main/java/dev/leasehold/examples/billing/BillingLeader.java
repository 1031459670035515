package dev.leasehold.examples.billing;

import dev.leasehold.spring.FencedContext;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.stereotype.Component;

/**
 * This instance's place in the {@code billing} election (ZooKeeper, or the database lease): the starter elects one
 * instance and tells it here, with the fencing token of its grant.
 */
@Component
public class BillingLeader extends DefaultCandidate {

    private static final Logger log = LoggerFactory.getLogger(BillingLeader.class);

    private volatile long token; // 0: not leading

    BillingLeader() {
        super(null, "billing"); // no id of its own: the starter's <host>-<pid>-<random>, or
        // leasehold.election.participant-id
    }

    @Override
    public void onGranted(Context context) {
        token = ((FencedContext) context).token().value();
        log.info("leading billing with token {}", token);
    }

    @Override
    public void onRevoked(Context context) {
        token = 0;
        log.info("no longer leading billing");
    }

    /** @return the current grant's token; empty while this instance does not lead (as far as it knows) */
    public OptionalLong token() {
        long current = token;
        return current == 0 ? OptionalLong.empty() : OptionalLong.of(current);
    }
}
