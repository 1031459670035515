package dev.leasehold.examples.billing;

import dev.leasehold.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Billing instances in child JVMs ({@link BillingChild}) and every line they print, in the order this JVM read them.
 * The test waits for lines (events), never for time. Thread-safe; {@link #close()} kills every child.
 */
final class Instances implements AutoCloseable {

    /** One line printed by the instance {@code who}. */
    record Line(String who, String text) {}

    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final List<Line> lines = new ArrayList<>();
    private final ChildJvm.ExitHook hook = ChildJvm.onExit("billing-instances", this::killAll);

    /** Starts the instance {@code who} with Spring Boot's {@code args}. */
    synchronized void start(String who, List<String> args) throws IOException {
        Process process = ChildJvm.start(BillingChild.class, args);
        processes.put(who, process);
        Thread pump = new Thread(() -> pump(who, process), "billing-" + who + "-out");
        pump.setDaemon(true);
        pump.start();
    }

    private void pump(String who, Process process) {
        try (BufferedReader out = process.inputReader(StandardCharsets.UTF_8)) {
            out.lines().forEach(text -> said(new Line(who, text)));
        } catch (IOException | UncheckedIOException gone) {
            // the child is gone
        }
    }

    private synchronized void said(Line line) {
        lines.add(line);
        notifyAll();
    }

    /**
     * Waits for the {@code n}th line (counting from 1) that matches, among all lines printed so far and to come.
     *
     * @return that line
     * @throws AssertionError if it did not come within {@code timeout}
     */
    synchronized Line await(Predicate<Line> matches, int n, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Line> found = lines.stream().filter(matches).toList();
            if (found.size() >= n) {
                return found.get(n - 1);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(
                        "no " + what + " within " + timeout + "; the instances said:\n" + transcript());
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** @return every line {@code who} printed so far */
    synchronized List<String> of(String who) {
        return lines.stream().filter(l -> l.who().equals(who)).map(Line::text).toList();
    }

    /** @return every line so far, each prefixed by its instance */
    synchronized String transcript() {
        StringBuilder all = new StringBuilder();
        lines.forEach(l -> all.append(l.who()).append(" | ").append(l.text()).append('\n'));
        return all.toString();
    }

    /** Sends {@code signal} ({@code -STOP}, {@code -CONT}) to the instance {@code who}. */
    void signal(String signal, String who) throws IOException, InterruptedException {
        Process process;
        synchronized (this) {
            process = processes.get(who);
        }
        ChildJvm.signal(signal, process);
    }

    private synchronized List<Process> all() {
        return new ArrayList<>(processes.values());
    }

    private void killAll() {
        all().forEach(Process::destroyForcibly);
    }

    @Override
    public void close() {
        killAll();
        try {
            for (Process process : all()) {
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            hook.close();
        }
    }
}
