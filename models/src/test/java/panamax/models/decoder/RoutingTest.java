package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Top-k routing against a float64 reference, and the grouping of (token, slot) pairs by expert. */
class RoutingTest {

    /** softmax over all logits in f64, the k largest, optionally renormalized. */
    private static double[][] reference(float[] logits, int tokens, int experts, int k, boolean normalize, int[][] chosen) {
        double[][] w = new double[tokens][k];
        for (int t = 0; t < tokens; t++) {
            int base = t * experts;
            double max = Double.NEGATIVE_INFINITY, sum = 0;
            for (int e = 0; e < experts; e++) max = Math.max(max, logits[base + e]);
            double[] p = new double[experts];
            for (int e = 0; e < experts; e++) sum += p[e] = Math.exp(logits[base + e] - max);
            for (int e = 0; e < experts; e++) p[e] /= sum;
            Integer[] order = IntStream.range(0, experts).boxed().sorted(Comparator.comparingDouble((Integer e) -> -p[e])).toArray(Integer[]::new);
            double selected = 0;
            for (int j = 0; j < k; j++) {
                chosen[t][j] = order[j];
                selected += w[t][j] = p[order[j]];
            }
            if (normalize) for (int j = 0; j < k; j++) w[t][j] /= selected;
        }
        return w;
    }

    @Test
    void routingMatchesAFloat64SoftmaxTopKWithAndWithoutRenormalisation() {
        Random r = new Random(24);
        int checked = 0;
        for (int trial = 0; trial < 40; trial++) {
            int experts = 2 + r.nextInt(130), k = 1 + r.nextInt(Math.min(8, experts)), tokens = 1 + r.nextInt(9);
            boolean normalize = r.nextBoolean();
            float[] logits = new float[tokens * experts];
            for (int i = 0; i < logits.length; i++) logits[i] = (float) (r.nextGaussian() * 3);
            Routing got = Routing.route(logits, tokens, experts, k, normalize);
            int[][] chosen = new int[tokens][k];
            double[][] want = reference(logits, tokens, experts, k, normalize, chosen);
            for (int t = 0; t < tokens; t++) {
                for (int j = 0; j < k; j++) {
                    assertEquals(chosen[t][j], got.expert()[t * k + j], "expert of token " + t + " slot " + j);
                    assertEquals(want[t][j], got.weight()[t * k + j], 1e-6, "weight of token " + t + " slot " + j);
                    checked++;
                }
            }
        }
        assertEquals(true, checked >= 100, "checked " + checked);
    }

    @Test
    void renormalisedTopTwoIsASoftmaxOverTheSelectedLogits() {
        float[] logits = {0.3f, -1.2f, 2.0f, 1.1f};
        Routing got = Routing.route(logits, 1, 4, 2, true);
        assertArrayEquals(new int[]{2, 3}, got.expert());
        double a = Math.exp(2.0 - 1.1);
        assertEquals(a / (a + 1), got.weight()[0], 1e-6);
        assertEquals(1 / (a + 1), got.weight()[1], 1e-6);
    }

    @Test
    void groupingListsEachExpertsTokensOnceInTokenOrder() {
        // tokens 0..3, k = 2
        Routing r = new Routing(4, 2, new int[]{1, 0, 2, 1, 1, 3, 0, 2}, new float[8]);
        Routing.Groups g = r.group(5);
        assertArrayEquals(new int[]{0, 3}, g.tokens(0, 2));
        assertArrayEquals(new int[]{0, 1, 2}, g.tokens(1, 2));
        assertArrayEquals(new int[]{1, 3}, g.tokens(2, 2));
        assertArrayEquals(new int[]{2}, g.tokens(3, 2));
        assertEquals(0, g.count(4));
        int[] row = g.rowOfSlot();
        int[] sorted = row.clone();
        Arrays.sort(sorted);
        assertArrayEquals(IntStream.range(0, 8).toArray(), sorted, "every slot has one row");
        for (int s = 0; s < 8; s++) assertEquals(s, g.slots()[row[s]]);
    }

    @Test
    void badShapesAreRefusedWithTheirSizes() {
        var e = assertThrows(IllegalArgumentException.class, () -> Routing.route(new float[7], 2, 4, 2, true));
        assertEquals("router logits: expected 2 x 4, found 7 values", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Routing.route(new float[8], 2, 4, 5, true));
        var nan = assertThrows(IllegalArgumentException.class, () -> Routing.route(new float[]{0, 1, Float.NaN, 2}, 1, 4, 2, true));
        assertEquals("router logits of token 0: expected finite values, found NaN", nan.getMessage());
    }
}
