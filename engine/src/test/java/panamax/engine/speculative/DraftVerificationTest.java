package panamax.engine.speculative;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import panamax.api.draft.Draft;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.RowState;
import panamax.engine.generate.SamplingParams;

/**
 * The acceptance rule on hand-made logits: greedy keeps the longest matching prefix and then the
 * target's argmax; rejection sampling leaves the first token distributed as the target's p,
 * whatever q the draft was drawn from (checked exactly against p by chi-square over 40,000 seeds).
 */
class DraftVerificationTest {
    private static final int VOCAB = 5;

    /** A row over a one-token prompt with the given sampling. */
    private static final class Row implements SpeculativeRow {
        final RowState state;
        final List<Integer> produced = new ArrayList<>();

        Row(SamplingParams params, int maxTokens) {
            state = new RowState(0, new GenerationRequest(new int[] {0}, params, maxTokens, Set.of()), null);
        }

        @Override
        public long key() {
            return 0;
        }

        @Override
        public RowState state() {
            return state;
        }

        @Override
        public boolean speculates() {
            return true;
        }

        @Override
        public void step(float[] logits, int from, int vocab) {
            produced.add(state.step(logits, from, vocab, GenerationListener.NONE));
        }

        @Override
        public void accept(int id, float[] logits, int from, int vocab) {
            produced.add(state.accept(id, GenerationListener.NONE));
        }
    }

    /** Logits with a clear argmax per position. */
    private static float[] peaked(int... argmax) {
        float[] l = new float[argmax.length * VOCAB];
        for (int i = 0; i < argmax.length; i++) l[i * VOCAB + argmax[i]] = 5;
        return l;
    }

    @Test
    void greedyKeepsTheLongestMatchingPrefixThenTheTargetsChoice() {
        Row row = new Row(SamplingParams.greedy(), 10);
        int accepted = DraftVerification.verify(row, Draft.of(1, 2, 3), peaked(1, 2, 4, 0), 0, VOCAB);
        assertEquals(2, accepted);
        assertEquals(List.of(1, 2, 4), row.produced);
        Row all = new Row(SamplingParams.greedy(), 10);
        assertEquals(3, DraftVerification.verify(all, Draft.of(1, 2, 3), peaked(1, 2, 3, 0), 0, VOCAB));
        assertEquals(List.of(1, 2, 3, 0), all.produced, "every draft accepted: the bonus token follows");
    }

    @Test
    void aRowThatReachesItsLimitStopsInsideTheDraft() {
        Row row = new Row(SamplingParams.greedy(), 2);
        DraftVerification.verify(row, Draft.of(1, 2, 3), peaked(1, 2, 3, 0), 0, VOCAB);
        assertEquals(List.of(1, 2), row.produced);
        assertTrue(row.state.finished());
    }

    @Test
    void rejectionSamplingLeavesTheFirstTokenDistributedAsTheTarget() {
        float[] logits = {1.0f, 0.2f, -0.5f, 0.7f, 0.0f, /* position 1 */ 0, 0, 0, 0, 0};
        float[] q = {0.05f, 0.6f, 0.05f, 0.1f, 0.2f}; // a draft model that over-proposes id 1
        SamplingParams params = SamplingParams.sample(1.0, 0);
        double[] p = new double[VOCAB];
        double z = 0;
        for (int i = 0; i < VOCAB; i++) z += Math.exp(logits[i]);
        for (int i = 0; i < VOCAB; i++) p[i] = Math.exp(logits[i]) / z;
        int seeds = 40_000;
        long[] pointMass = new long[VOCAB], drawnFromQ = new long[VOCAB];
        java.util.SplittableRandom draws = new java.util.SplittableRandom(7);
        for (int s = 0; s < seeds; s++) {
            Row a = new Row(params.withSeed(s), 10);
            DraftVerification.verify(a, Draft.of(1), logits, 0, VOCAB);
            pointMass[a.produced.getFirst()]++;
            int d = draw(q, draws.nextDouble());
            Row b = new Row(params.withSeed(s + seeds), 10);
            DraftVerification.verify(b, new Draft(new int[] {d}, new float[][] {q}), logits, 0, VOCAB);
            drawnFromQ[b.produced.getFirst()]++;
        }
        // chi-square against p with 4 degrees of freedom; 18.47 is the 0.999 quantile
        assertTrue(chiSquare(pointMass, p, seeds) < 18.47, "point-mass draft: " + java.util.Arrays.toString(pointMass));
        assertTrue(chiSquare(drawnFromQ, p, seeds) < 18.47, "draft drawn from q: " + java.util.Arrays.toString(drawnFromQ));
    }

    @Test
    void theResidualIsTheExcessOfTheTargetOverTheDraft() {
        double[] r = DraftVerification.residual(new double[] {0.5, 0.3, 0.2}, new float[] {0.2f, 0.6f, 0.2f}, 1);
        assertArrayEquals(new double[] {1, 0, 0}, r, 1e-6);
        double[] pointMass = DraftVerification.residual(new double[] {0.5, 0.3, 0.2}, null, 0);
        assertArrayEquals(new double[] {0, 0.6, 0.4}, pointMass, 1e-12);
    }

    private static int draw(float[] q, double u) {
        double c = 0;
        for (int i = 0; i < q.length; i++) {
            c += q[i];
            if (u < c) return i;
        }
        return q.length - 1;
    }

    private static double chiSquare(long[] counts, double[] p, int n) {
        double x2 = 0;
        for (int i = 0; i < p.length; i++) x2 += (counts[i] - n * p[i]) * (counts[i] - n * p[i]) / (n * p[i]);
        return x2;
    }
}
