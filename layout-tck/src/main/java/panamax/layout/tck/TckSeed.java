package panamax.layout.tck;

import org.quicktheories.QuickTheory;

/**
 * The seed of the kits' generated inputs: fixed, so a run is reproducible, unless
 * {@code -Dpanamax.tck.seed} gives a number or {@code random} (then printed, to replay a failure).
 */
public final class TckSeed {
    private static final long DEFAULT = 0x5EED_CAFEL;

    private TckSeed() {
    }

    /** The seed for this run. */
    public static long seed() {
        String value = System.getProperty("panamax.tck.seed", "").strip();
        if (value.isEmpty()) return DEFAULT;
        if (value.equals("random")) {
            long seed = System.nanoTime();
            System.err.println("panamax.tck.seed=" + seed);
            return seed;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("-Dpanamax.tck.seed: expected a number or 'random', found '" + value + "'");
        }
    }

    /** QuickTheories with the run's seed. */
    public static QuickTheory qt() {
        return QuickTheory.qt().withFixedSeed(seed());
    }
}
