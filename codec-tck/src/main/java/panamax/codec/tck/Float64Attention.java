package panamax.codec.tck;

import panamax.api.tensor.AttentionMask;

/** Scaled dot-product attention in float64 with grouped heads and causal / windowed masks: the oracle. */
final class Float64Attention {
    private Float64Attention() {
    }

    /**
     * @param q    [b, hq, tq, d]
     * @param k    [b, hkv, tk, d]
     * @param v    [b, hkv, tk, d]
     * @return [b, hq, tq, d]; a query that sees no key gives zeros
     */
    static double[] attend(float[] q, float[] k, float[] v, int b, int hq, int hkv, int tq, int tk, int d, double scale,
                           AttentionMask mask) {
        double[] out = new double[b * hq * tq * d];
        for (int n = 0; n < b; n++) {
            for (int h = 0; h < hq; h++) {
                int kv = h / (hq / hkv);
                for (int i = 0; i < tq; i++) {
                    int qBase = ((n * hq + h) * tq + i) * d;
                    double[] scores = new double[tk];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j < tk; j++) {
                        if (!sees(mask, i, j, tq, tk)) continue;
                        int kBase = ((n * hkv + kv) * tk + j) * d;
                        double s = 0;
                        for (int x = 0; x < d; x++) s += q[qBase + x] * (double) k[kBase + x];
                        scores[j] = s * scale;
                        max = Math.max(max, scores[j]);
                    }
                    if (max == Double.NEGATIVE_INFINITY) continue;
                    double total = 0;
                    for (int j = 0; j < tk; j++) {
                        if (!sees(mask, i, j, tq, tk)) continue;
                        double w = Math.exp(scores[j] - max);
                        total += w;
                        int vBase = ((n * hkv + kv) * tk + j) * d;
                        for (int x = 0; x < d; x++) out[qBase + x] += w * v[vBase + x];
                    }
                    for (int x = 0; x < d; x++) out[qBase + x] /= total;
                }
            }
        }
        return out;
    }

    /** Whether query i of tq (the last tq of tk positions) sees key j. */
    static boolean sees(AttentionMask mask, int i, int j, int tq, int tk) {
        return switch (mask) {
            case AttentionMask.None none -> true;
            case AttentionMask.Causal c -> {
                int last = tk - tq + i;
                yield j <= last && (c.window() == 0 || j > last - c.window());
            }
            case AttentionMask.Explicit e -> throw new IllegalArgumentException("explicit masks are not generated here");
        };
    }
}
