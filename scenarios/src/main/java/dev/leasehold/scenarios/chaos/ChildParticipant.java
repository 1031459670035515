package dev.leasehold.scenarios.chaos;

import dev.leasehold.testkit.ChaosDatabase;
import dev.leasehold.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A participant in its own JVM ({@link ChaosChild}): paused with kill -STOP, crashed with kill -KILL. */
final class ChildParticipant extends Participant {

    /** How long a child JVM may take to join. */
    static final long START_SECONDS = 60;
    /** A stopped child JVM is resumed after this long even if the campaign's JVM is gone (pauses are shorter). */
    private static final int RESUME_ANYWAY_SECONDS = 60;

    private volatile Process process;
    private volatile Writer commands;
    private volatile CountDownLatch joined;
    private volatile Thread pump;
    private volatile boolean stopped;
    private volatile boolean clockShared = true;
    /** A detached {@code sleep; kill -CONT}, so that a stopped child resumes even if this JVM is killed. */
    private volatile Process resumer;

    ChildParticipant(String id, boolean selector, Setting setting) throws IOException {
        super(id, selector, setting);
    }

    @Override
    void start() throws IOException {
        ChaosCampaign.Config config = setting.config();
        ChaosDatabase db = config.database();
        joined = new CountDownLatch(1);
        Process child = ChildJvm.start(
                ChaosChild.class,
                ChildArgs.of(
                                connectString(),
                                db.jdbcUrl(),
                                setting.prefix(),
                                id,
                                path(),
                                resource(),
                                ChaosCampaign.SESSION_MS)
                        .withCredentials(db.user(), db.password())
                        .withSelector(selector)
                        .withFenced(!config.unfenced())
                        .toArgs());
        commands = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8);
        process = child;
        CountDownLatch mine = joined;
        Thread reader = new Thread(() -> pump(child, mine), "chaos-pipe-" + id);
        reader.setDaemon(true);
        reader.start();
        pump = reader;
    }

    private void pump(Process child, CountDownLatch mine) {
        Member.Events events = events();
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (ChaosChild.replay(line, events)) {
                    continue;
                }
                if (line.startsWith("JOINED ")) {
                    long skew = System.nanoTime() - Long.parseLong(line.split(" ")[2]);
                    if (skew < 0 || skew > TimeUnit.SECONDS.toNanos(START_SECONDS)) {
                        clockShared = false; // this OS gives each process its own nanoTime origin
                    }
                    mine.countDown();
                } else {
                    setting.config().out().println("  " + id + " said: " + line);
                }
            }
        } catch (IOException ignored) {
            // the child is gone
        }
    }

    @Override
    void awaitJoined() throws InterruptedException {
        if (!joined.await(START_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(id + "'s JVM did not join within " + START_SECONDS + " s");
        }
        if (!clockShared) {
            throw new IllegalStateException("process mode needs System.nanoTime() to be one clock for all"
                    + " processes (as on Linux and macOS); " + id + "'s clock differs from the campaign's");
        }
    }

    @Override
    String pauseKind() {
        return "kill -STOP (the whole JVM)";
    }

    @Override
    void pause() throws Exception {
        resumer = new ProcessBuilder("sh", "-c", "sleep " + RESUME_ANYWAY_SECONDS + " && kill -CONT " + process.pid())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        ChildJvm.signal("-STOP", process);
        stopped = true;
    }

    @Override
    void unpause() throws Exception {
        if (stopped) {
            ChildJvm.signal("-CONT", process);
            stopped = false;
        }
        Process pending = resumer;
        if (pending != null) {
            pending.destroy(); // the shell dies before its kill -CONT
            resumer = null;
        }
    }

    @Override
    void expireOnClient() throws IOException {
        command("EXPIRE");
    }

    private void command(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    @Override
    void crashAndRestart() throws Exception {
        Process old = process;
        ChildJvm.signal("-KILL", old);
        old.onExit().get(30, TimeUnit.SECONDS);
        pump.join(TimeUnit.SECONDS.toMillis(10)); // every line the dead JVM wrote has been read
        stopped = false;
        endAllBeliefs();
        start();
    }

    @Override
    void kill() {
        Process child = process;
        if (child != null) {
            child.destroyForcibly();
        }
    }

    @Override
    public void close() {
        Process child = process;
        if (child != null) {
            try {
                unpause();
                command("QUIT");
                if (!child.waitFor(10, TimeUnit.SECONDS)) {
                    child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
                Thread reader = pump;
                if (reader != null) {
                    reader.join(TimeUnit.SECONDS.toMillis(10)); // every line it wrote has been read
                }
            } catch (Exception e) {
                child.destroyForcibly();
            }
        }
        endAllBeliefs();
        closeProxies();
    }
}
