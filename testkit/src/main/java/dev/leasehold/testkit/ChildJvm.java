package dev.leasehold.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Starts a class in a child JVM (same java, same class path), sends signals to processes, and makes sure children do
 * not outlive this JVM. Thread-safe: it keeps no state.
 */
public final class ChildJvm {

    private ChildJvm() {}

    /** @return whether {@code kill -STOP} / {@code kill -CONT} / {@code kill -KILL} can be sent here (Linux, macOS) */
    public static boolean signalsSupported() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        return (os.contains("linux") || os.contains("mac"))
                && (new File("/bin/kill").canExecute() || new File("/usr/bin/kill").canExecute());
    }

    /**
     * Starts {@code main} in a child JVM; its stdout is piped to this process, its stderr discarded.
     *
     * @param main the class whose {@code main} runs
     * @param args its arguments
     * @return the child process
     * @throws IOException if the JVM cannot be started
     */
    public static Process start(Class<?> main, List<String> args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        return new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /** A shutdown hook registered by {@link #onExit}; closing it removes the hook. */
    public interface ExitHook extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Runs {@code killChildren} if this JVM exits while the returned hook is open: a child stopped with
     * {@code kill -STOP} would never read that its stdin closed. Close the hook once the children are gone.
     *
     * @param name         the hook thread's name
     * @param killChildren what ends the children, e.g. {@code Process::destroyForcibly} on each
     * @return the hook; {@link ExitHook#close()} removes it
     */
    public static ExitHook onExit(String name, Runnable killChildren) {
        Thread hook = new Thread(killChildren, name);
        Runtime.getRuntime().addShutdownHook(hook);
        return () -> {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the JVM is already exiting: the hook runs anyway
            }
        };
    }

    /**
     * Sends {@code signal} to a process.
     *
     * @param signal  e.g. {@code -STOP}, {@code -CONT}, {@code -KILL}
     * @param process the process
     * @throws IOException           if kill cannot be started
     * @throws InterruptedException  if interrupted while kill runs
     * @throws IllegalStateException if kill fails
     */
    public static void signal(String signal, Process process) throws IOException, InterruptedException {
        signal(signal, process.pid());
    }

    /**
     * Sends {@code signal} to the process {@code pid}, which need not be a child.
     *
     * @param signal e.g. {@code -QUIT}
     * @param pid    the process id
     * @throws IOException           if kill cannot be started
     * @throws InterruptedException  if interrupted while kill runs
     * @throws IllegalStateException if kill fails
     */
    public static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, String.valueOf(pid))
                .inheritIO()
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill " + signal + " " + pid + " failed");
        }
    }

    /** What marks a command-line argument as the path of a secret's file ({@link #secretArgument}). */
    public static final String SECRET_FILE = "@secret-file:";

    /**
     * Puts {@code secret} where only this user can read it, for a child's command line: a file of mode 0600 (created
     * so, never readable by others for an instant), whose path is the argument. {@code ps} shows every local user the
     * command lines of every process; a password there is public. The child reads it with
     * {@link #readSecretArgument} (which deletes the file); the file is also deleted when this JVM exits.
     *
     * @param secret the secret, e.g. a database password
     * @return the argument to pass instead of the secret
     * @throws IOException if the file cannot be written
     */
    public static String secretArgument(String secret) throws IOException {
        Path file = Files.createTempFile(
                "leasehold-secret",
                "",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        file.toFile().deleteOnExit();
        Files.writeString(file, secret, StandardCharsets.UTF_8);
        return SECRET_FILE + file;
    }

    /**
     * In the child: the secret an argument made by {@link #secretArgument} stands for, read once (the file is deleted).
     * Any other argument is returned as it is.
     *
     * @param argument the argument
     * @return the secret, or the argument itself
     * @throws IOException if the file cannot be read
     */
    public static String readSecretArgument(String argument) throws IOException {
        if (argument == null || !argument.startsWith(SECRET_FILE)) {
            return argument;
        }
        Path file = Path.of(argument.substring(SECRET_FILE.length()));
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
