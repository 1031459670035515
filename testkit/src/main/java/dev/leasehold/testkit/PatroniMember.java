package dev.leasehold.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * One member of a {@link PatroniCluster}: a Patroni process and the PostgreSQL it manages, on loopback ports of its
 * own, with its own directory. Its faults act on processes only (no packet filter is needed): SIGKILL of the
 * postmaster and its children, SIGSTOP/SIGCONT of a walsender. Thread-safe: the process handle is guarded by this
 * object's monitor; the rest is immutable.
 */
public final class PatroniMember {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final int postgresPort;
    private final int restPort;
    private final Path directory;
    private Process patroni;

    PatroniMember(String name, int postgresPort, int restPort, Path directory) {
        this.name = name;
        this.postgresPort = postgresPort;
        this.restPort = restPort;
        this.directory = directory;
    }

    /** @return the member's name in Patroni, e.g. {@code pg0} */
    public String name() {
        return name;
    }

    /** @return the loopback port PostgreSQL listens on */
    public int postgresPort() {
        return postgresPort;
    }

    /** @return the loopback port of Patroni's REST API */
    public int restPort() {
        return restPort;
    }

    /** @return the member's directory: {@code patroni.yml}, {@code patroni.log}, {@code data/} */
    public Path directory() {
        return directory;
    }

    Path data() {
        return directory.resolve("data");
    }

    synchronized void start(String yaml) throws IOException {
        Files.createDirectories(directory);
        Path config = directory.resolve("patroni.yml");
        Files.writeString(config, yaml);
        ProcessBuilder builder = new ProcessBuilder(Patroni.PATRONI, config.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        directory.resolve("patroni.log").toFile()));
        // A clean environment: a PGPASSWORD (or other PG* variable) inherited here would override Patroni's pgpass,
        // and replication and pg_rewind would then fail to authenticate.
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/bin:/bin");
        builder.environment().put("HOME", directory.toString());
        builder.environment().put("LANG", "C.UTF-8");
        patroni = builder.start();
    }

    /**
     * Asks Patroni's REST API {@code GET /<check>} on loopback.
     *
     * @param check {@code primary}, {@code replica}, {@code sync}, {@code async}, {@code health}...
     * @return whether it answered 200
     */
    public boolean answers(String check) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/" + check))
                .timeout(Duration.ofSeconds(2))
                .GET()
                .build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Changes the cluster's dynamic configuration: {@code PATCH /config} with {@code json}.
     *
     * @throws IllegalStateException if Patroni did not answer 200
     */
    void patchConfig(String json) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + "/config"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(json))
                .build();
        try {
            HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(
                        "Patroni refused PATCH /config " + json + ": " + response.statusCode() + " " + response.body());
            }
        } catch (IOException e) {
            throw new IllegalStateException("PATCH /config on " + this + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during PATCH /config on " + this, e);
        }
    }

    /** @return whether Patroni says this member is the primary ({@code GET /primary} answers 200) */
    public boolean isPrimary() {
        return answers("primary");
    }

    /** @return the postmaster's pid from {@code postmaster.pid}, if PostgreSQL runs */
    public OptionalLong postmasterPid() {
        Path pidFile = data().resolve("postmaster.pid");
        try {
            List<String> lines = Files.readAllLines(pidFile);
            if (lines.isEmpty() || !lines.get(0).strip().matches("\\d+")) {
                return OptionalLong.empty();
            }
            long pid = Long.parseLong(lines.get(0).strip());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isPresent()
                    ? OptionalLong.of(pid)
                    : OptionalLong.empty();
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * SIGKILL of the postmaster and then of every process it started (a stopped walsender included): PostgreSQL
     * crashes as in a power loss of the database, while Patroni on this member lives on and reports it.
     *
     * @return whether a postmaster was running
     */
    public boolean killPostgres() {
        OptionalLong pid = postmasterPid();
        if (pid.isEmpty()) {
            return false;
        }
        ProcessHandle postmaster = ProcessHandle.of(pid.getAsLong()).orElse(null);
        if (postmaster == null) {
            return false;
        }
        List<ProcessHandle> children = postmaster.children().toList();
        postmaster.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        return true;
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}...) to {@code pid}. */
    static void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
                        + new String(kill.getInputStream().readAllBytes()).strip());
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending " + signal + " to " + pid, e);
        }
    }

    /**
     * Stops the member at once: SIGKILL of Patroni, then of the postmaster and its children (a throwaway cluster
     * needs no clean shutdown, and a clean one of a two-member cluster would first fail over to the other member).
     */
    synchronized void stop() {
        Process process = patroni;
        patroni = null;
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        killPostgres();
    }

    @Override
    public String toString() {
        return name + " (PostgreSQL 127.0.0.1:" + postgresPort + ", REST 127.0.0.1:" + restPort + ")";
    }
}
