package panamax.bench;

/**
 * The jar's entry point. No arguments, or {@code report [jmh options]}: run {@link PerformanceReport}.
 * Anything else is handed to JMH's own command line ({@code org.openjdk.jmh.Main}), e.g.
 * {@code -l} to list benchmarks or {@code MatVecBf16 -p n=4096} to run one.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("report")) {
            PerformanceReport.main(args.length == 0 ? args : java.util.Arrays.copyOfRange(args, 1, args.length));
        } else {
            org.openjdk.jmh.Main.main(args);
        }
    }
}
