package panamax.models.decoder;

import java.util.Arrays;

/**
 * Which experts each token goes to and with what weight, as transformers computes it in f32:
 * softmax over all experts' router logits, the {@code k} largest probabilities (ties to the lower
 * expert), optionally divided by their sum — which equals a softmax over the selected logits
 * (Mixtral). Also groups the (token, slot) pairs by expert, so that each expert runs once per step
 * over all tokens routed to it. Immutable.
 *
 * @param tokens  tokens routed
 * @param k       experts per token
 * @param expert  per (token, slot) {@code t·k + j}, the chosen expert, by descending weight
 * @param weight  per (token, slot), the expert's weight
 */
record Routing(int tokens, int k, int[] expert, float[] weight) {

    /**
     * Routes {@code tokens} tokens from their router logits {@code [tokens, experts]} (row-major).
     *
     * @param normalize divide the selected probabilities by their sum
     */
    static Routing route(float[] logits, int tokens, int experts, int k, boolean normalize) {
        if (logits.length != tokens * experts) {
            throw new IllegalArgumentException("router logits: expected " + tokens + " x " + experts + ", found " + logits.length + " values");
        }
        if (k < 1 || k > experts) throw new IllegalArgumentException("top-k: expected 1.." + experts + ", found " + k);
        int[] chosen = new int[tokens * k];
        float[] weights = new float[tokens * k];
        float[] p = new float[experts];
        for (int t = 0; t < tokens; t++) {
            int base = t * experts;
            float max = Float.NEGATIVE_INFINITY;
            for (int e = 0; e < experts; e++) max = Math.max(max, logits[base + e]);
            float sum = 0;
            for (int e = 0; e < experts; e++) {
                p[e] = (float) Math.exp(logits[base + e] - max);
                sum += p[e];
            }
            for (int e = 0; e < experts; e++) p[e] /= sum;
            float selected = 0;
            for (int j = 0; j < k; j++) {
                int best = -1;
                for (int e = 0; e < experts; e++) {
                    if (p[e] >= 0 && (best < 0 || p[e] > p[best])) best = e;
                }
                if (best < 0) throw new IllegalArgumentException("router logits of token " + t + ": expected finite values, found NaN");
                chosen[t * k + j] = best;
                weights[t * k + j] = p[best];
                selected += p[best];
                p[best] = -1; // taken
            }
            if (normalize) for (int j = 0; j < k; j++) weights[t * k + j] /= selected;
        }
        return new Routing(tokens, k, chosen, weights);
    }

    /** The (token, slot) pairs grouped by expert: {@code slots} in expert order, {@code start[e]..start[e+1]} expert e's. */
    record Groups(int[] slots, int[] start) {
        int count(int e) {
            return start[e + 1] - start[e];
        }

        /** The tokens routed to expert {@code e}, in token order. */
        int[] tokens(int e, int k) {
            int[] out = new int[count(e)];
            for (int i = 0; i < out.length; i++) out[i] = slots[start[e] + i] / k;
            return out;
        }

        /** For each (token, slot) in slot order, its row in the expert-ordered concatenation of outputs. */
        int[] rowOfSlot() {
            int[] out = new int[slots.length];
            for (int i = 0; i < slots.length; i++) out[slots[i]] = i;
            return out;
        }
    }

    /** Groups the (token, slot) pairs by expert (a counting sort: stable, so tokens stay in order within an expert). */
    Groups group(int experts) {
        int[] start = new int[experts + 1];
        for (int e : expert) start[e + 1]++;
        for (int e = 0; e < experts; e++) start[e + 1] += start[e];
        int[] fill = Arrays.copyOf(start, experts);
        int[] slots = new int[expert.length];
        for (int s = 0; s < expert.length; s++) slots[fill[expert[s]]++] = s;
        return new Groups(slots, start);
    }
}
