package dev.leasehold.scenarios.chaos;

import dev.leasehold.store.FenceGate;
import dev.leasehold.store.StoreConfig;
import dev.leasehold.testkit.SimpleDataSource;
import dev.leasehold.testkit.TcpProxy;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;

/**
 * One participant of a process-mode campaign, in its own JVM so that {@code kill -STOP} freezes all of it (its
 * ZooKeeper client included) and {@code kill -KILL} crashes it. It runs a {@link Member} and reports on stdout, one
 * line per event: {@code JOINED pid nanos}, {@code GRANT token session nanos}, {@code ACK token seq},
 * {@code STALE token}, {@code DBERR}, {@code END token nanos} (nanos: {@link System#nanoTime()}, one clock for all
 * processes on Linux and macOS). It reads commands on stdin: {@code EXPIRE} (expire its session on the client
 * only) and {@code QUIT}; it also quits when stdin closes (the campaign's JVM is gone). A child stopped with
 * {@code kill -STOP} cannot read that, so every stop comes with a detached {@code kill -CONT} a while later.
 *
 * <p>Arguments: {@link ChildArgs}.
 */
public final class ChaosChild {

    private ChaosChild() {}

    public static void main(String[] args) throws Exception {
        ChildArgs child;
        try {
            child = ChildArgs.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("usage: ChaosChild " + e.getMessage());
            System.exit(2);
            return;
        }
        PrintStream out = System.out;
        SimpleDataSource ds = new SimpleDataSource(child.jdbcUrl(), child.user(), child.password());
        FenceGate gate = new FenceGate(ds, StoreConfig.defaults().withTablePrefix(child.prefix()));
        CuratorFramework client =
                TcpProxy.clientBuilder(child.zk(), child.sessionMs()).build();
        client.start();
        Member member = new Member(client, gate, Member.Config.of(child, ds), reporter(out));
        member.start();
        say(out, "JOINED " + ProcessHandle.current().pid() + " " + System.nanoTime());
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String command;
            while ((command = in.readLine()) != null && !command.equals("QUIT")) {
                if (command.equals("EXPIRE")) {
                    client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
                }
            }
        }
        member.close();
        client.close();
        System.exit(0);
    }

    /** The child's side of the protocol: each event as one line on {@code out}. */
    static Member.Events reporter(PrintStream out) {
        return new Member.Events() {
            @Override
            public void granted(long token, long session, long atNanos) {
                say(out, "GRANT " + token + " " + session + " " + atNanos);
            }

            @Override
            public void acknowledged(String resource, long token, long seq, long sentNanos, long ackedNanos) {
                // the resource last: the campaign's own names, checked by the store (no spaces)
                say(out, "ACK " + token + " " + seq + " " + sentNanos + " " + ackedNanos + " " + resource);
            }

            @Override
            public void staleRejected(long token) {
                say(out, "STALE " + token);
            }

            @Override
            public void databaseError(String what) {
                say(out, "DBERR " + what); // one line: LeaderWork.what folds whitespace
            }

            @Override
            public void ended(long token, long atNanos) {
                say(out, "END " + token + " " + atNanos);
            }
        };
    }

    /**
     * The campaign's side: replays one line {@link #reporter} wrote as a call on {@code events}.
     *
     * @return false if the line is not an event (JOINED, or anything else the child printed)
     */
    static boolean replay(String line, Member.Events events) {
        String[] word = line.split(" ");
        switch (word[0]) {
            case "GRANT" -> events.granted(Long.parseLong(word[1]), Long.parseLong(word[2]), Long.parseLong(word[3]));
            case "ACK" -> events.acknowledged(
                    word[5],
                    Long.parseLong(word[1]),
                    Long.parseLong(word[2]),
                    Long.parseLong(word[3]),
                    Long.parseLong(word[4]));
            case "STALE" -> events.staleRejected(Long.parseLong(word[1]));
            case "DBERR" -> events.databaseError(line.length() > 6 ? line.substring(6) : "");
            case "END" -> events.ended(Long.parseLong(word[1]), Long.parseLong(word[2]));
            default -> {
                return false;
            }
        }
        return true;
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
