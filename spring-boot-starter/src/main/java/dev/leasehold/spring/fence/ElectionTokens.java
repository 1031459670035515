package dev.leasehold.spring.fence;

import dev.leasehold.recipes.FencingToken;
import dev.leasehold.spring.NotLeaderException;
import dev.leasehold.spring.lease.LeaseLeaderInitiator;
import dev.leasehold.spring.zookeeper.FencedLeaderInitiator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * "The current grant's token of role R, or none", asked of whichever initiator runs the role: a
 * {@link FencedLeaderInitiator} (ZooKeeper) or a {@link LeaseLeaderInitiator} (the database lease). Both answer from
 * the grant they hold now, withdrawn at once on a loss (the ZooKeeper token as soon as the connection is SUSPENDED or
 * LOST, the lease's once its renew deadline passed), so a token read here is never one the initiator already knows it
 * lost. The initiators are looked up once, on the first question, when the context has created them.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ElectionTokens {

    private final ListableBeanFactory beans;
    /** Role to the initiators of that role (several candidates may share one): read once, then fixed. */
    private volatile Map<String, List<Supplier<OptionalLong>>> byRole;

    ElectionTokens(ListableBeanFactory beans) {
        this.beans = beans;
    }

    /**
     * The current token of {@code role}'s grant, or of the context's only role when {@code role} is empty.
     *
     * @throws IllegalStateException if the context has no election, {@code role} is not one of its roles, or it is
     *                               empty and the context has several
     * @throws NotLeaderException    if this instance holds no grant of that role now
     */
    long current(String role, String resource) {
        Map<String, List<Supplier<OptionalLong>>> roles = roles();
        if (roles.isEmpty()) {
            throw new IllegalStateException("Fencing '" + resource + "' with the current grant's token: this context"
                    + " has no election (no Candidate bean, so no leader initiator). Pass the token yourself:"
                    + " LeaseholdFence.check(resource, token)");
        }
        String chosen = role;
        if (chosen.isEmpty()) {
            if (roles.size() > 1) {
                throw new IllegalStateException("Fencing '" + resource + "' with the current grant's token: this"
                        + " context has elections for several roles " + roles.keySet() + ", so say which one's: "
                        + "@Fenced(value = \"" + resource + "\", role = \"...\"), or pass the token yourself:"
                        + " LeaseholdFence.check(resource, token)");
            }
            chosen = roles.keySet().iterator().next();
        }
        List<Supplier<OptionalLong>> initiators = roles.get(chosen);
        if (initiators == null) {
            throw new IllegalStateException("Fencing '" + resource + "' with the token of role '" + chosen + "': this"
                    + " context has no election for that role; its roles are " + roles.keySet());
        }
        for (Supplier<OptionalLong> initiator : initiators) {
            OptionalLong token = initiator.get();
            if (token.isPresent()) {
                return token.getAsLong();
            }
        }
        throw new NotLeaderException(
                chosen,
                "Refused to fence '" + resource + "': this instance does not lead role '" + chosen + "' (no grant, or"
                        + " the grant was withdrawn); nothing was sent. Roll back and leave the work to the leader");
    }

    private Map<String, List<Supplier<OptionalLong>>> roles() {
        Map<String, List<Supplier<OptionalLong>>> roles = byRole;
        if (roles == null) {
            Map<String, List<Supplier<OptionalLong>>> found = new TreeMap<>();
            for (FencedLeaderInitiator initiator : beans.getBeansOfType(FencedLeaderInitiator.class, false, false)
                    .values()) {
                found.computeIfAbsent(initiator.role(), r -> new ArrayList<>()).add(() -> zookeeperToken(initiator));
            }
            for (LeaseLeaderInitiator initiator : beans.getBeansOfType(LeaseLeaderInitiator.class, false, false)
                    .values()) {
                found.computeIfAbsent(initiator.role(), r -> new ArrayList<>()).add(initiator::currentToken);
            }
            roles = Collections.unmodifiableMap(found);
            byRole = roles;
        }
        return roles;
    }

    private static OptionalLong zookeeperToken(FencedLeaderInitiator initiator) {
        return initiator
                .currentToken()
                .map(FencingToken::value)
                .map(OptionalLong::of)
                .orElse(OptionalLong.empty());
    }
}
