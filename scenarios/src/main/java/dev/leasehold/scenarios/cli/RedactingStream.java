package dev.leasehold.scenarios.cli;

import dev.leasehold.store.Redaction;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the program prints, with every credential masked by the store's one {@link Redaction}: messages, stack traces
 * ({@code --verbose}), the log lines of its libraries (SLF4J's simple logger writes to {@code System.err}) and the
 * children's lines it relays. It holds back each line until its end, so a URL printed in pieces is masked whole; a
 * flush hands on the line so far (a prompt), masked as it is.
 *
 * <p>Thread-safe: every write and flush is serialised, as {@link PrintStream}'s own are.
 */
public final class RedactingStream extends OutputStream {
    private final OutputStream target;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    private RedactingStream(OutputStream target) {
        this.target = target;
    }

    /**
     * @param target where the masked text goes
     * @return a print stream (UTF-8, flushed at each line) that masks credentials before {@code target} sees them
     */
    public static PrintStream over(PrintStream target) {
        return new PrintStream(new RedactingStream(target), true, StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void write(int b) {
        line.write(b);
        if (b == '\n') {
            pass();
        }
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) {
        int start = offset;
        for (int i = offset; i < offset + length; i++) {
            if (bytes[i] == '\n') {
                line.write(bytes, start, i + 1 - start);
                pass();
                start = i + 1;
            }
        }
        line.write(bytes, start, offset + length - start);
    }

    @Override
    public synchronized void flush() {
        pass();
        try {
            target.flush();
        } catch (java.io.IOException e) {
            // a print stream records its own errors; nothing to add here
        }
    }

    private void pass() {
        if (line.size() == 0) {
            return;
        }
        byte[] masked = Redaction.redact(line.toString(StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        line.reset();
        try {
            target.write(masked);
        } catch (java.io.IOException e) {
            // as above
        }
    }
}
