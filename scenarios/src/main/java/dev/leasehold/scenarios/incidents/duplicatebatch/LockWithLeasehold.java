package dev.leasehold.scenarios.incidents.duplicatebatch;

import dev.leasehold.scenarios.RunResult;
import dev.leasehold.scenarios.cli.Env;
import dev.leasehold.scenarios.report.Timeline;
import dev.leasehold.spring.FencedLock;
import dev.leasehold.spring.FencedLockRegistry;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.FencedSchema;
import dev.leasehold.store.StaleTokenException;
import dev.leasehold.store.StoreConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;

/**
 * The lock form with Leasehold: {@link FencedLockRegistry#jdbc} (a lease row per key, its generation the token, ttl
 * 2 s) around the same push. Each pod reads its hold's token ({@link FencedLock#token()}) when it takes the lock,
 * fences first ({@link FenceGate#advance}) and pushes through the gate with it. pod-B's token is higher, so pod-A's
 * late push is refused ({@link StaleTokenException}): batch-0 pushed once.
 *
 * <p>pod-A reads its token before the pause, as real code does: read after it, {@code token()} would throw (the hold
 * is lost by this process's clock), a local check that a pause just after it would defeat. Only the gate closes the
 * race.
 */
final class LockWithLeasehold {

    static final String TITLE = "fenced lock";

    private LockWithLeasehold() {}

    static RunResult run(Env env) throws Exception {
        env.out()
                .println("-- " + TITLE + ": FencedLockRegistry.jdbc, ttl 2 s, the push through a FenceGate with the"
                        + " lock's token");
        DataSource ds = env.dataSource(DuplicateBatchScenario.NAME + "-fenced-lock");
        String prefix = env.tablePrefix();
        StoreConfig config = StoreConfig.defaults().withTablePrefix(prefix);
        try {
            FencedSchema.install(ds, config);
            Accounting accounting = Accounting.create(ds, prefix);
            FenceGate gate = new FenceGate(ds, config);
            Timeline timeline =
                    new Timeline(DuplicateBatchScenario.NAME + ": " + TITLE, env.out(), List.of("pod-A", "pod-B"));
            List<String> refused = new ArrayList<>();
            LockedPush push = new LockedPush() {
                @Override
                public long taken(String pod, Lock lock) {
                    long token = ((FencedLock) lock).token();
                    gate.advance(LockTicks.KEY, token, pod);
                    timeline.info(pod, "token " + token + ": advances the gate on " + LockTicks.KEY + " (fence first)");
                    return token;
                }

                @Override
                public boolean push(String pod, String batch, long token) {
                    try {
                        gate.write(LockTicks.KEY, token, tx -> accounting.push(tx, batch, pod, token));
                        timeline.accepted(
                                pod, "pushes " + batch + " through the gate with token " + token, token, batch);
                        return true;
                    } catch (StaleTokenException e) {
                        synchronized (refused) {
                            refused.add(pod + "'s push of " + batch + " with token " + token + " (highest "
                                    + e.highestToken() + ")");
                        }
                        timeline.rejected(
                                pod,
                                "late push of " + batch + " with token " + token + " refused: StaleTokenException"
                                        + " (highest " + e.highestToken() + "); nothing pushed",
                                token,
                                batch);
                        return false;
                    }
                }
            };
            LockTicks.Outcome outcome = LockTicks.run(
                    timeline,
                    FencedLockRegistry.jdbc(ds, config, LockTicks.TTL),
                    FencedLockRegistry.jdbc(ds, config, LockTicks.TTL),
                    accounting,
                    push,
                    "fenced lock (ttl 2 s)");
            timeline.finish();
            List<String> pushers = accounting.pushers("batch-0");
            List<String> verdicts = List.of(
                    "pushes of batch-0 to accounting: " + pushers.size() + " (" + String.join(", ", pushers) + ")",
                    "late pushes refused: " + (refused.isEmpty() ? "none" : String.join(", ", refused)),
                    "pod-A's unlock after its push: " + outcome.podAUnlock());
            env.printVerdicts(verdicts);
            boolean held = pushers.equals(List.of("pod-B"))
                    && refused.size() == 1
                    && refused.get(0).startsWith("pod-A");
            return new RunResult(
                    DuplicateBatchScenario.NAME,
                    TITLE,
                    false,
                    timeline,
                    verdicts,
                    held,
                    "batch-0 pushed once, by pod-B, and pod-A's late push refused by the gate");
        } finally {
            env.dropTables(ds, prefix);
        }
    }
}
