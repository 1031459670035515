package dev.leasehold.scenarios.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the scenarios program in-process and keeps what it printed. */
public record Program(int exitCode, String out, String err) {

    public static Program run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.execute(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Program(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    public String all() {
        return "exit " + exitCode + "\n--- out\n" + out + "\n--- err\n" + err;
    }
}
