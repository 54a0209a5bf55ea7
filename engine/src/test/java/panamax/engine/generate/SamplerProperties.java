package panamax.engine.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.doubles;
import static org.quicktheories.generators.SourceDSL.floats;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** Invariants of every sampling filter over generated logits. */
class SamplerProperties {
    private static final Gen<List<Float>> LOGITS = lists().of(floats().between(-8f, 8f)).ofSizeBetween(2, 60);

    private static double[] scores(List<Float> logits) {
        double[] s = new double[logits.size()];
        for (int i = 0; i < s.length; i++) s[i] = logits.get(i);
        return s;
    }

    private static float[] floatsOf(List<Float> logits) {
        float[] f = new float[logits.size()];
        for (int i = 0; i < f.length; i++) f[i] = logits.get(i);
        return f;
    }

    private static int kept(double[] p) {
        int n = 0;
        for (double v : p) if (v > 0) n++;
        return n;
    }

    /**
     * Exactly {@code min(k, n)} tokens survive (ties are broken by lower id, so this holds with ties
     * too; the generator's distinct-logit cases are the ones the property is about), none of them
     * beaten by a dropped one, each with its full-softmax probability renormalized over the kept set.
     */
    @Test
    void topKKeepsExactlyTheKMostLikelyTokens() {
        qt().forAll(LOGITS, integers().between(1, 70)).checkAssert((logits, k) -> {
            double[] full = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0));
            double[] p = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0).withTopK(k));
            assertEquals(Math.min(k, logits.size()), kept(p), "kept tokens of " + logits + " at k=" + k);
            double keptMass = 0;
            for (int i = 0; i < p.length; i++) if (p[i] > 0) keptMass += full[i];
            for (int i = 0; i < p.length; i++) {
                if (p[i] > 0) assertEquals(full[i] / keptMass, p[i], 1e-12, "renormalized probability of token " + i);
                for (int j = 0; j < p.length; j++) {
                    if (p[i] == 0 && p[j] > 0) assertTrue(logits.get(i) <= logits.get(j), "a dropped token beats a kept one");
                }
            }
            assertEquals(1, sum(p), 1e-9);
        });
    }

    /**
     * Draws under top-k follow the renormalized distribution of the kept k: 12 distinct logits,
     * k = 5, 50,000 draws with seed 42; no dropped token is ever drawn, and Pearson's chi-square
     * over the 5 kept tokens (4 degrees of freedom) stays under 33.38, its 1e-6 upper quantile,
     * so a correct sampler fails this with probability 1e-6 over seeds (and never with this seed).
     */
    @Test
    void topKDrawsFollowTheRenormalizedProbabilitiesOfTheKeptTokens() {
        float[] logits = {0.3f, -1.2f, 2.0f, 1.1f, -0.4f, 0.9f, 1.7f, -2.5f, 0.0f, 1.4f, -0.9f, 0.6f};
        int k = 5, n = 50_000;
        SamplingParams params = SamplingParams.sample(1, 42).withTopK(k);
        double[] expected = new double[logits.length];
        double[] s = new double[logits.length];
        for (int i = 0; i < s.length; i++) s[i] = logits[i];
        Integer[] order = new Integer[logits.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        java.util.Arrays.sort(order, (a, b) -> Float.compare(logits[b], logits[a]));
        double z = 0;
        for (int r = 0; r < k; r++) z += Math.exp(s[order[r]]);
        for (int r = 0; r < k; r++) expected[order[r]] = Math.exp(s[order[r]]) / z;
        int[] counts = new int[logits.length];
        Sampler sampler = new Sampler(params);
        for (int i = 0; i < n; i++) counts[sampler.next(logits, 0, logits.length, new int[0], 0)]++;
        double chiSquare = 0;
        for (int i = 0; i < logits.length; i++) {
            if (expected[i] == 0) {
                assertEquals(0, counts[i], "token " + i + " is outside the top " + k + " but was drawn");
            } else {
                double e = expected[i] * n;
                chiSquare += (counts[i] - e) * (counts[i] - e) / e;
            }
        }
        System.out.println("top-k draws: chi-square " + chiSquare + ", counts " + java.util.Arrays.toString(counts));
        assertTrue(chiSquare < 33.38, "chi-square " + chiSquare + " over 4 degrees of freedom; counts " + java.util.Arrays.toString(counts));
    }

    @Test
    void topPKeepsTheSmallestSetReachingP() {
        qt().forAll(LOGITS, doubles().between(0.05, 0.99)).checkAssert((logits, topP) -> {
            double[] full = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0));
            double[] p = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0).withTopP(topP));
            double mass = 0, smallestKept = Double.MAX_VALUE;
            for (int i = 0; i < p.length; i++) {
                if (p[i] > 0) {
                    mass += full[i];
                    smallestKept = Math.min(smallestKept, full[i]);
                }
            }
            assertTrue(mass >= topP - 1e-9, "kept mass " + mass + " below " + topP);
            assertTrue(mass - smallestKept < topP + 1e-9, "dropping the least likely kept token would still reach top_p");
            for (int i = 0; i < p.length; i++) if (p[i] == 0) assertTrue(full[i] <= smallestKept + 1e-12);
        });
    }

    @Test
    void minPDropsExactlyTheTokensBelowTheScaledMaximum() {
        qt().forAll(LOGITS, doubles().between(0.0, 1.0)).checkAssert((logits, minP) -> {
            double[] full = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0));
            double[] p = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0).withMinP(minP));
            double best = 0;
            for (double v : full) best = Math.max(best, v);
            for (int i = 0; i < p.length; i++) assertEquals(full[i] >= minP * best, p[i] > 0, "token " + i);
        });
    }

    @Test
    void theSameSeedDrawsTheSameIds() {
        qt().forAll(LOGITS, longs().all(), doubles().between(0.1, 2.0)).checkAssert((logits, seed, temperature) -> {
            float[] f = floatsOf(logits);
            SamplingParams params = SamplingParams.sample(temperature, seed).withTopP(0.9).withTopK(20);
            assertArrayEquals(draws(new Sampler(params), f, 30), draws(new Sampler(params), f, 30));
        });
    }

    @Test
    void drawsFollowTheDistribution() {
        float[] logits = {0f, (float) Math.log(3)};
        Sampler sampler = new Sampler(SamplingParams.sample(1, 7));
        int ones = 0, n = 20000;
        for (int i = 0; i < n; i++) ones += sampler.next(logits, 0, 2, new int[0], 0);
        assertEquals(0.75, ones / (double) n, 0.02);
    }

    @Test
    void greedyIsTheArgmaxWhateverTheSeed() {
        qt().forAll(LOGITS, longs().all()).checkAssert((logits, seed) -> {
            float[] f = floatsOf(logits);
            int best = Sampler.argmax(scores(logits));
            assertEquals(best, new Sampler(SamplingParams.greedy().withSeed(seed)).next(f, 0, f.length, new int[0], 0));
        });
    }

    @Test
    void repetitionPenaltyNeverMakesASeenTokenMoreLikely() {
        qt().forAll(LOGITS, doubles().between(1.0, 3.0), integers().between(0, 59)).checkAssert((logits, penalty, seenRaw) -> {
            int seen = seenRaw % logits.size();
            double[] before = Sampler.probabilities(scores(logits), SamplingParams.sample(1, 0));
            double[] s = scores(logits);
            Sampler.penalize(s, new int[] {seen, seen}, 2, SamplingParams.sample(1, 0).withRepetitionPenalty(penalty, 20));
            double[] after = Sampler.probabilities(s, SamplingParams.sample(1, 0));
            assertTrue(s[seen] <= logits.get(seen), "penalized logit went up");
            assertTrue(after[seen] <= before[seen] + 1e-12, "penalized token became more likely");
            for (int i = 0; i < s.length; i++) if (i != seen) assertEquals((double) logits.get(i), s[i]);
        });
    }

    /**
     * With no filter the sampler draws from the softmax's weights without normalizing them: the same token as a draw
     * from the normalized probabilities, unless u lies within rounding of the boundary between two tokens.
     */
    @Test
    void unfilteredDrawsPickWhatTheNormalizedDistributionPicks() {
        qt().forAll(LOGITS, doubles().between(0.05, 3.0), doubles().between(0, 0.999999)).checkAssert((logits, temperature, u) -> {
            double[] p = Sampler.probabilities(scores(logits), SamplingParams.sample(temperature, 0));
            int expected = Sampler.draw(p, u);
            int got = Sampler.drawWeighted(scores(logits), temperature, u);
            if (got != expected) {
                double below = 0;
                for (int i = 0; i < Math.min(got, expected); i++) below += p[i];
                assertEquals(below + p[Math.min(got, expected)], u, 1e-12, "draws of " + logits + " at u=" + u + ": " + got + " against " + expected);
            }
        });
    }

    @Test
    void repetitionPenaltyOnlyLooksAtTheRecentContext() {
        double[] s = {2, 2, 2};
        Sampler.penalize(s, new int[] {0, 1, 2}, 3, SamplingParams.sample(1, 0).withRepetitionPenalty(2, 1));
        assertArrayEquals(new double[] {2, 2, 1}, s);
    }

    private static int[] draws(Sampler sampler, float[] logits, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) out[i] = sampler.next(logits, 0, logits.length, out, i);
        return out;
    }

    private static double sum(double[] p) {
        double s = 0;
        for (double v : p) s += v;
        return s;
    }
}
