package dev.leasehold.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM ({@link ChildJvm#start}) spoken to by lines: what it prints on stdout is read by a daemon thread into a
 * queue, what the test tells it goes to its stdin. Closing it kills the child (a stopped one too) and waits for it.
 * Made for tests that freeze a child with {@code kill -STOP} and read what it did once resumed.
 */
public final class ChildLines implements AutoCloseable {

    private final Process process;
    private final ChildJvm.ExitHook exitHook;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildLines(Process process, String name) {
        this.process = process;
        this.exitHook = ChildJvm.onExit(name + "-kill", process::destroyForcibly);
        Thread pump = new Thread(this::pump, name + "-stdout");
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts {@code main} in a child JVM and reads its stdout.
     *
     * @param name a short name for the threads this starts
     * @param main the class whose {@code main} runs
     * @param args its arguments
     * @return the running child
     * @throws IOException if the JVM cannot be started
     */
    public static ChildLines start(String name, Class<?> main, List<String> args) throws IOException {
        return new ChildLines(ChildJvm.start(main, args), name);
    }

    /** @return the child process, e.g. for {@link ChildJvm#signal(String, Process)} */
    public Process process() {
        return process;
    }

    /**
     * The next line the child printed, waiting for it.
     *
     * @param wait how long to wait at most (a JVM's start on a loaded machine takes seconds)
     * @return the line, or a text starting with {@code "(nothing within"} when none came in time
     * @throws InterruptedException if interrupted while waiting
     */
    public String next(Duration wait) throws InterruptedException {
        String line = lines.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        return line == null ? "(nothing within " + wait.toSeconds() + " s from the child)" : line;
    }

    /**
     * Writes one line to the child's stdin; a stopped child reads it when it resumes.
     *
     * @param line the line, without its line break
     * @throws IOException if the child's stdin is closed
     */
    public void tell(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Kills the child (SIGKILL ends a stopped child too), waits for it at most 10 s, removes the exit hook. */
    @Override
    public void close() {
        try {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            exitHook.close();
        }
    }

    private void pump() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        } catch (IOException gone) {
            // the child is gone: next() says nothing came
        }
    }
}
