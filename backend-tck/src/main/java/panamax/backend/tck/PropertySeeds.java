package panamax.backend.tck;

import java.security.SecureRandom;
import java.util.List;

/**
 * The seeds every TCK property runs with. By default two passes: a seed drawn once per test JVM, so
 * each build tries inputs no earlier build saw, then the fixed seed {@value #FIXED}, the inputs every
 * build has passed. {@code -Dpanamax.qt.seed=N} runs seed N alone (replaying a failure, whose message
 * names its seed); {@code -Dpanamax.qt.fixedPass=false} leaves out the fixed pass (the vector-width
 * runs of backend-java, where the default run already made it), and
 * {@code -Dpanamax.qt.examplesPercent=P} runs P % of each property's examples. The drawn seed is
 * printed once per JVM, tagged {@code [qt]}.
 */
public final class PropertySeeds {
    /** The seed of the fixed pass (used alone before the TCK drew seeds). */
    public static final long FIXED = 20_261_129L;
    /** The system property that replays one seed. */
    public static final String SEED_PROPERTY = "panamax.qt.seed";
    /** The system property that, set to {@code false}, leaves out the fixed pass. */
    public static final String FIXED_PASS_PROPERTY = "panamax.qt.fixedPass";
    /**
     * The system property that scales every property's examples, in percent (default 100; at least one
     * example each): the vector-width runs take a share of the drawn seed's cases, a new share each build.
     */
    public static final String EXAMPLES_PERCENT_PROPERTY = "panamax.qt.examplesPercent";
    private static final int EXAMPLES_PERCENT = percent(System.getProperty(EXAMPLES_PERCENT_PROPERTY, "100"));

    /** One pass of a property: its seed and why it runs. */
    public record Pass(long seed, String kind) {
        /** E.g. "drawn seed 123 (replay: -Dpanamax.qt.seed=123)". */
        public String describe() {
            return kind + " seed " + seed + " (replay: -D" + SEED_PROPERTY + "=" + seed + ")";
        }
    }

    private static final List<Pass> PASSES = passesOf(System.getProperty(SEED_PROPERTY, ""), System.getProperty(FIXED_PASS_PROPERTY, "true"));

    static {
        StringBuilder line = new StringBuilder("[qt] TCK properties run with ");
        for (int i = 0; i < PASSES.size(); i++) line.append(i == 0 ? "" : ", then ").append(PASSES.get(i).describe());
        String width = System.getProperty("panamax.test.vector.bits", "");
        if (EXAMPLES_PERCENT != 100) line.append("; ").append(EXAMPLES_PERCENT).append(" % of each property's examples");
        if (!width.isBlank()) line.append("; vector-width run of ").append(width.strip()).append(" bits");
        System.out.println(line);
    }

    private PropertySeeds() {
    }

    /** The passes of this JVM, in order. */
    public static List<Pass> passes() {
        return PASSES;
    }

    /** The examples a property of {@code examples} runs per pass here: scaled by the percent property, at least 1. */
    public static int examples(int examples) {
        return Math.max(1, (int) ((long) examples * EXAMPLES_PERCENT / 100));
    }

    private static int percent(String value) {
        try {
            int p = Integer.parseInt(value.strip());
            if (p >= 1 && p <= 100) return p;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("-D" + EXAMPLES_PERCENT_PROPERTY + " must be a whole number from 1 to 100, found '" + value + "'");
    }

    static List<Pass> passesOf(String seed, String fixedPass) {
        if (!seed.isBlank()) {
            try {
                return List.of(new Pass(Long.parseLong(seed.strip()), "given"));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + SEED_PROPERTY + " must be a whole number (a seed a failure printed), found '" + seed + "'");
            }
        }
        Pass drawn = new Pass(new SecureRandom().nextLong(), "drawn");
        return Boolean.parseBoolean(fixedPass.strip()) ? List.of(drawn, new Pass(FIXED, "fixed")) : List.of(drawn);
    }
}
