package dev.leasehold.recipes;

import org.apache.curator.framework.CuratorFramework;

/**
 * The work a {@link FencedLeaderSelector} runs while this participant leads.
 *
 * <p>Thread-safety: called on the selector's own thread, one grant at a time.
 */
public interface FencedLeaderSelectorListener {

    /**
     * Called when this participant becomes leader, on the selector's own thread (never a ZooKeeper or Curator
     * thread). Leadership lasts until this method returns. Return as soon as the work is done.
     *
     * <p>IMPORTANT: when the connection is SUSPENDED or LOST, the token is withdrawn and this thread is
     * interrupted. Code that ignores interrupts keeps running, and keeps writing with {@code token}: only the
     * resource's token check stops those writes, so send {@code token} with every one of them.
     *
     * @param client the client the selector runs on
     * @param token  the fencing token of this grant
     * @throws Exception anything; it is logged with the participant id and the token, and leadership ends
     */
    void takeLeadership(CuratorFramework client, FencingToken token) throws Exception;
}
