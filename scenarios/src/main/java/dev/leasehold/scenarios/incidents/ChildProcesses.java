package dev.leasehold.scenarios.incidents;

import dev.leasehold.scenarios.incidents.partitions.PartitionedBillingScenario;
import dev.leasehold.scenarios.incidents.pause.DbLeaseScenario;
import dev.leasehold.scenarios.incidents.pause.RealPauseScenario;
import dev.leasehold.testkit.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs of one run of a scenario ({@link RealPauseScenario}, {@link DbLeaseScenario},
 * {@link PartitionedBillingScenario}): each started with {@link ChildJvm}, each line it prints handed to the run's
 * {@link Lines} by a pump thread of its own, all killed when the run ends ({@link #killAll}) or the JVM exits. Its
 * methods are called from the scenario's thread; the exit hook may run on any.
 */
public final class ChildProcesses {

    /** Told each line a child prints, on the child's pump thread. */
    @FunctionalInterface
    public interface Lines {
        /**
         * @param child the child's name
         * @param line  what it printed
         */
        void said(String child, String line);
    }

    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Lines lines;
    private final ChildJvm.ExitHook cleanup;

    /**
     * @param name  the scenario's name, for the exit hook's thread
     * @param lines told every line of every child
     */
    public ChildProcesses(String name, Lines lines) {
        this.lines = lines;
        this.cleanup = ChildJvm.onExit(name + "-kill-children", () -> all().forEach(Process::destroyForcibly));
    }

    /** Starts {@code main} with {@code args} as the child {@code child} and pumps its lines. */
    public void start(String child, Class<?> main, List<String> args) throws IOException {
        Process process = ChildJvm.start(main, args);
        synchronized (processes) {
            processes.put(child, process);
        }
        Thread pump = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            lines.said(child, line);
                        }
                    } catch (IOException ignored) {
                        // the child is gone
                    }
                },
                "pipe-" + child);
        pump.setDaemon(true);
        pump.start();
    }

    /** Sends {@code signal} ({@code -STOP}, {@code -CONT}) to the child {@code child}. */
    public void signal(String signal, String child) throws IOException, InterruptedException {
        ChildJvm.signal(signal, process(child));
    }

    /** Writes {@code command} as one line to the stdin of the child {@code child}. */
    public void tell(String child, String command) throws IOException {
        OutputStream in = process(child).getOutputStream();
        in.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private Process process(String child) {
        Process process;
        synchronized (processes) {
            process = processes.get(child);
        }
        if (process == null) {
            throw new IllegalArgumentException("no child called " + child);
        }
        return process;
    }

    /** Kills every child, then waits (at most 10 s each) until it is gone; the run's teardown. */
    public void killAll() throws InterruptedException {
        List<Process> all = all();
        for (Process process : all) {
            process.destroyForcibly();
        }
        for (Process process : all) {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        cleanup.close();
    }

    private List<Process> all() {
        synchronized (processes) {
            return new ArrayList<>(processes.values());
        }
    }
}
