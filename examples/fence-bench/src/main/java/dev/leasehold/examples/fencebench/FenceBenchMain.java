package dev.leasehold.examples.fencebench;

/**
 * Runs the fence bench and prints its table: {@code [--seconds S] [--warmup S] [--threads 1,8] [--jdbc URL [--user U]
 * [--password P]]}. See the module's README.md and docs/performance.md.
 */
public final class FenceBenchMain {

    private FenceBenchMain() {}

    /**
     * The program.
     *
     * @param args the flags
     * @throws Exception if the bench failed (a database that did not start, a transaction that failed)
     */
    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
                System.out.println(BenchOptions.USAGE);
                return;
            }
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        FenceBench.Result result = FenceBench.run(options, System.err);
        System.out.println(result.report());
    }
}
