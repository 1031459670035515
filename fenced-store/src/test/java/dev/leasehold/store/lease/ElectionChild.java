package dev.leasehold.store.lease;

import dev.leasehold.testkit.SimpleDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One {@link LeaseElection} in a JVM of its own, for {@link OneHolderIdInTwoProcessesTest}. Arguments: JDBC URL, user,
 * password, lease name, holder id, lease, renew deadline and retry period in milliseconds. On stdout, one line per
 * event: {@code ACQUIRED token}, {@code LOST token cause}, and {@code STATUS token} (or {@code STATUS none}) for each
 * {@code status} line read on stdin. Closes the election and exits at {@code close} or when stdin ends.
 */
final class ElectionChild {

    private ElectionChild() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = System.out;
        SimpleDataSource ds = new SimpleDataSource(args[0], args[1], args[2]);
        LeaseTiming timing =
                LeaseTiming.ofMillis(Long.parseLong(args[5]), Long.parseLong(args[6]), Long.parseLong(args[7]));
        LeaseElection election = new LeaseElection(ds, args[3], args[4], timing, new LeaseListener() {
            @Override
            public void acquired(long token) {
                say(out, "ACQUIRED " + token);
            }

            @Override
            public void lost(long token, LeaseLoss cause) {
                say(out, "LOST " + token + " " + cause);
            }
        });
        election.start();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null && !line.equals("close")) {
                if (line.equals("status")) {
                    say(
                            out,
                            "STATUS "
                                    + (election.currentToken().isPresent()
                                            ? election.currentToken().getAsLong()
                                            : "none"));
                }
            }
        }
        election.close();
        System.exit(0);
    }

    private static void say(PrintStream out, String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
