package dev.leasehold.scenarios.ops;

import dev.leasehold.scenarios.cli.DatabaseOptions;
import dev.leasehold.store.FenceGate;
import dev.leasehold.store.MarkMovedException;
import dev.leasehold.store.StoreConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code rebase}: the audited re-base of a resource's fence mark after a ZooKeeper rebuild ({@link FenceGate#rebase}),
 * after a confirmation that {@code --yes} skips. Exit codes: 0 re-based, 1 not confirmed, 2 bad usage or an
 * unreachable database.
 *
 * <p>Thread-safety: a picocli command, run once on the calling thread.
 */
@Command(
        name = "rebase",
        mixinStandardHelpOptions = true,
        description = "Sets a resource's fence mark to TOKEN, even lower, audited with operator and reason: the step"
                + " after a ZooKeeper rebuild (a new ensemble restarts its czxids low). Make sure no old leader can"
                + " still write first. Prints the old and the new mark. --jdbc is required.")
public final class RebaseCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** Required here: {@link #call} says so if it is missing. */
    @Mixin
    DatabaseOptions database = new DatabaseOptions();

    @Option(
            names = "--prefix",
            defaultValue = StoreConfig.DEFAULT_PREFIX,
            description = "the store's table prefix (default: ${DEFAULT-VALUE})")
    String prefix;

    @Option(names = "--resource", required = true, description = "the resource whose mark to set")
    String resource;

    @Option(
            names = "--token",
            required = true,
            description = "the new mark, 1 or more (tokens are positive; 1 lets every token pass)")
    long token;

    @Option(names = "--operator", required = true, paramLabel = "NAME", description = "who does this (audited)")
    String operator;

    @Option(names = "--reason", required = true, paramLabel = "TEXT", description = "why (audited)")
    String reason;

    @Option(names = "--yes", description = "do not ask for confirmation")
    boolean yes;

    @Override
    public Integer call() throws Exception {
        if (database.jdbc() == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--jdbc=URL'");
        }
        if (resource.isBlank() || operator.isBlank() || reason.isBlank() || token < 1) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--resource, --operator and --reason must not be blank and --token must be 1 or more (tokens are"
                            + " positive, as the gate takes them)");
        }
        StoreConfig config;
        try {
            config = StoreConfig.defaults().withTablePrefix(prefix);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--prefix: " + e.getMessage());
        }
        FenceGate gate = new FenceGate(StoreAccess.open(database, config), config);
        PrintWriter out = spec.commandLine().getOut();
        OptionalLong current = gate.highestToken(resource);
        if (!yes) {
            out.print("Re-base the fence of '" + resource + "' from " + mark(current) + " to " + token
                    + "? From then on any token of " + token + " or more passes: make sure no old leader can still"
                    + " write. Type yes to go on: ");
            out.flush();
            String answer = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (!"yes".equals(answer == null ? null : answer.strip())) {
                out.println("not re-based: the mark of '" + resource + "' is still " + mark(current));
                out.flush();
                return 1;
            }
        }
        OptionalLong old;
        try {
            // compare-and-set against what the operator was shown: a leader that advanced meanwhile is not lowered
            old = gate.rebase(resource, current, token, operator, reason);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        } catch (MarkMovedException e) {
            out.println("not re-based: " + e.getMessage());
            out.flush();
            return 1;
        }
        out.println("fence of '" + resource + "' re-based from " + mark(old) + " to " + token + " by " + operator + ": "
                + reason);
        out.flush();
        return 0;
    }

    private static String mark(OptionalLong token) {
        return token.isPresent() ? Long.toString(token.getAsLong()) : "no mark";
    }
}
