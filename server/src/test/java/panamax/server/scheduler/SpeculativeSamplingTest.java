package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.Generator;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.speculative.Speculation;

/**
 * Seeded sampling with speculation keeps the target's distribution: over many seeds, the tokens
 * at generated positions 2 and 5 (produced by verification: accepted drafts, draws from the
 * residual, bonus tokens) are distributed as plain sampling's, by a chi-square test of
 * homogeneity at significance 0.001 (categories with fewer than 5 expected draws pooled). Checked
 * for prompt lookup (point-mass drafts) and for a one-layer draft model (drafts drawn from its own
 * softmax, so the residual max(0, p − q) is exercised), with temperature 0.7 and top-p 0.95. A
 * power check shows the test rejects a sampler that is only slightly off (temperature 0.85).
 */
class SpeculativeSamplingTest {
    private static final int SEEDS = 2400;
    private static final int BATCH = 300;
    private static final int TOKENS = 6;
    private static final int[] POSITIONS = {2, 5};
    private static final double ALPHA = 0.001;
    private static final String PROMPT = "one two three four one two three four one two three four one two";

    @TempDir
    Path temp;

    @Test
    void speculativeSamplingMatchesPlainSamplingAtFixedPositions() {
        String model = "qwen3-tiny";
        try (ModelSession session = Models.open(model)) {
            int[] prompt = session.tokenizer().encode(PROMPT, true);
            SamplingParams params = SamplingParams.sample(0.7, 0).withTopP(0.95);
            List<int[]> plain = sample(session.generator(), prompt, params, 1);
            List<String> report = new ArrayList<>();
            boolean same = true;
            Path cut = Drafts.truncated(Models.directory(model), 1, temp.resolve("cut"));
            for (var drafter : List.<Object[]>of(new Object[] {"ngram K=4", (Function<ModelSession, Speculation>) s -> Drafts.ngram(s, 4)},
                    new Object[] {"1-layer draft model K=3", (Function<ModelSession, Speculation>) s -> Drafts.draftModel(s, cut, 3)})) {
                @SuppressWarnings("unchecked")
                Function<ModelSession, Speculation> open = (Function<ModelSession, Speculation>) drafter[1];
                try (Speculation speculation = open.apply(session)) {
                    List<int[]> fast = sample(session.generator().withSpeculation(speculation), prompt, params, 1 + SEEDS);
                    report.add(drafter[0] + ": " + speculation.stats().summary());
                    long accepted = speculation.stats().accepted(), rejected = speculation.stats().drafted() - accepted;
                    assertTrue(accepted >= 100 && rejected >= 100, drafter[0] + ": both paths (a draft kept, a draft rejected and a token"
                            + " drawn from the residual) must be taken at least 100 times to be tested: " + speculation.stats().summary());
                    for (int position : POSITIONS) {
                        ChiSquare test = ChiSquare.of(column(plain, position), column(fast, position));
                        report.add(drafter[0] + ", position " + position + ": " + test);
                        same &= !test.rejects(ALPHA);
                    }
                }
            }
            // power: the same test tells apart a sampler whose temperature is slightly off
            List<int[]> hotter = sample(session.generator(), prompt, SamplingParams.sample(0.85, 0).withTopP(0.95), 1 + 2 * SEEDS);
            ChiSquare power = ChiSquare.of(column(plain, 5), column(hotter, 5));
            report.add("power check, temperature 0.7 vs 0.85, position 5: " + power);
            System.out.println(String.join("\n", report));
            assertTrue(power.rejects(ALPHA), "the test cannot tell temperature 0.7 from 0.85 with " + SEEDS + " seeds:\n" + String.join("\n", report));
            assertTrue(same, "speculative sampling's distribution differs from plain sampling's:\n" + String.join("\n", report));
        }
    }

    /** Generated ids of {@link #SEEDS} rows seeded {@code firstSeed, firstSeed + 1, ...}, run in batches. */
    private static List<int[]> sample(Generator generator, int[] prompt, SamplingParams params, long firstSeed) {
        List<int[]> out = new ArrayList<>(SEEDS);
        for (int from = 0; from < SEEDS; from += BATCH) {
            List<GenerationRequest> batch = new ArrayList<>();
            for (int i = from; i < Math.min(SEEDS, from + BATCH); i++) {
                batch.add(new GenerationRequest(prompt, params.withSeed(firstSeed + i), TOKENS, Set.of()));
            }
            GenerationOutput o = generator.generate(batch, GenerationListener.NONE);
            o.results().forEach(r -> out.add(r.tokens()));
        }
        return out;
    }

    private static int[] column(List<int[]> rows, int position) {
        return rows.stream().mapToInt(r -> r[position]).toArray();
    }

    /** Pearson's chi-square test of homogeneity of two samples of ids. */
    record ChiSquare(double statistic, int df, int categories) {
        static ChiSquare of(int[] a, int[] b) {
            TreeMap<Integer, int[]> counts = new TreeMap<>();
            for (int id : a) counts.computeIfAbsent(id, k -> new int[2])[0]++;
            for (int id : b) counts.computeIfAbsent(id, k -> new int[2])[1]++;
            double na = a.length, nb = b.length, n = na + nb;
            // pool categories whose smaller expected count is under 5
            List<int[]> cells = new ArrayList<>();
            int[] pooled = new int[2];
            for (int[] c : counts.values()) {
                if ((c[0] + c[1]) * Math.min(na, nb) / n < 5) {
                    pooled[0] += c[0];
                    pooled[1] += c[1];
                } else {
                    cells.add(c);
                }
            }
            if (pooled[0] + pooled[1] > 0) cells.add(pooled);
            double x2 = 0;
            for (int[] c : cells) {
                double total = c[0] + c[1];
                double ea = total * na / n, eb = total * nb / n;
                x2 += (c[0] - ea) * (c[0] - ea) / ea + (c[1] - eb) * (c[1] - eb) / eb;
            }
            return new ChiSquare(x2, Math.max(1, cells.size() - 1), cells.size());
        }

        /** Whether the statistic exceeds the chi-square quantile 1 − alpha (Wilson–Hilferty). */
        boolean rejects(double alpha) {
            return statistic > critical(alpha);
        }

        double critical(double alpha) {
            double z = alpha == 0.001 ? 3.090232 : alpha == 0.01 ? 2.326348 : 1.644854;
            double h = 2.0 / (9 * df);
            return df * Math.pow(1 - h + z * Math.sqrt(h), 3);
        }

        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "chi-square %.1f on %d degrees of freedom (%d categories), critical value at alpha %.3f: %.1f",
                    statistic, df, categories, ALPHA, critical(ALPHA));
        }
    }
}
