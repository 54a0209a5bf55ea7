package panamax.backend.tck;

import panamax.api.tensor.RopeSpec;

/**
 * Float64 references of the fused ops (norms, RoPE, softmax, attention) with the magnitudes their
 * tolerances scale with. Stateless; thread-safe.
 */
public final class FusedReferences {
    /** f32 angle error per radian of RoPE (a few ulps from position·scale·invFreq), relative to {@link BackendTck#RTOL}. */
    private static final double ANGLE_ERROR_PER_RADIAN = 0.05;

    private FusedReferences() {
    }

    /** {@code x / sqrt(mean(x²) + eps) · w} over the last axis; magnitude |x_i|·|w_i|/rms. */
    public static Expected rmsNorm(Ref x, Ref w, double eps) {
        int d = x.dim(-1);
        double[] out = new double[x.size()];
        double[] mag = new double[x.size()];
        for (int row = 0; row * d < x.size(); row++) {
            double sq = 0;
            for (int i = 0; i < d; i++) sq += x.values()[row * d + i] * x.values()[row * d + i];
            double inv = 1 / Math.sqrt(sq / d + eps);
            for (int i = 0; i < d; i++) {
                out[row * d + i] = x.values()[row * d + i] * inv * w.values()[i];
                mag[row * d + i] = Math.abs(out[row * d + i]);
            }
        }
        return new Expected(new Ref(x.dims(), out), mag);
    }

    /** {@code (x − mean)/sqrt(var + eps)·w + b} (population variance); magnitude counts the cancellation in x − mean. */
    public static Expected layerNorm(Ref x, Ref w, Ref b, double eps) {
        int d = x.dim(-1);
        double[] out = new double[x.size()];
        double[] mag = new double[x.size()];
        for (int row = 0; row * d < x.size(); row++) {
            double mean = 0;
            for (int i = 0; i < d; i++) mean += x.values()[row * d + i];
            mean /= d;
            double var = 0;
            for (int i = 0; i < d; i++) var += Math.pow(x.values()[row * d + i] - mean, 2);
            double inv = 1 / Math.sqrt(var / d + eps);
            for (int i = 0; i < d; i++) {
                double xi = x.values()[row * d + i];
                out[row * d + i] = (xi - mean) * inv * w.values()[i] + b.values()[i];
                mag[row * d + i] = (Math.abs(xi) + Math.abs(mean)) * inv * Math.abs(w.values()[i]) + Math.abs(b.values()[i]);
            }
        }
        return new Expected(new Ref(x.dims(), out), mag);
    }

    /** Softmax along {@code axis}; magnitude p·(1 + |x − max|) for the exponent's rounding. */
    public static Expected softmax(Ref x, int axis) {
        double[] out = new double[x.size()];
        double[] mag = new double[x.size()];
        int n = x.dim(axis);
        int inner = 1;
        for (int a = axis + 1; a < x.rank(); a++) inner *= x.dim(a);
        int outer = n == 0 || inner == 0 ? 0 : x.size() / (n * inner);
        for (int o = 0; o < outer; o++) {
            for (int in = 0; in < inner; in++) {
                int base = o * n * inner + in;
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j < n; j++) max = Math.max(max, x.values()[base + j * inner]);
                double sum = 0;
                for (int j = 0; j < n; j++) sum += Math.exp(x.values()[base + j * inner] - max);
                for (int j = 0; j < n; j++) {
                    int at = base + j * inner;
                    out[at] = Math.exp(x.values()[at] - max) / sum;
                    mag[at] = out[at] * (1 + (Double.isInfinite(x.values()[at]) ? 0 : Math.abs(x.values()[at] - max)));
                }
            }
        }
        return new Expected(new Ref(x.dims(), out), mag);
    }

    /**
     * RoPE of {@code x [B, H, T, D]} with token t of row b at position {@code offsets[b or 0] + t};
     * magnitude (|x_a| + |x_b|)·(1 + angle error bound).
     */
    public static Expected rope(Ref x, RopeSpec spec, int[] offsets) {
        int bs = x.dim(0);
        int hs = x.dim(1);
        int ts = x.dim(2);
        int d = x.dim(3);
        int half = spec.dims() / 2;
        double[] out = x.values().clone();
        double[] mag = x.map(Math::abs).values();
        for (int b = 0; b < bs; b++) {
            int offset = offsets[offsets.length == 1 ? 0 : b];
            for (int h = 0; h < hs; h++) {
                for (int t = 0; t < ts; t++) {
                    int base = ((b * hs + h) * ts + t) * d;
                    for (int i = 0; i < half; i++) {
                        double theta = (offset + t) * spec.scale() * spec.inverseFrequency(i);
                        int ia = spec.traditional() ? base + 2 * i : base + i;
                        int ib = spec.traditional() ? base + 2 * i + 1 : base + i + half;
                        double xa = x.values()[ia];
                        double xb = x.values()[ib];
                        out[ia] = xa * Math.cos(theta) - xb * Math.sin(theta);
                        out[ib] = xa * Math.sin(theta) + xb * Math.cos(theta);
                        double m = (Math.abs(xa) + Math.abs(xb)) * (1 + ANGLE_ERROR_PER_RADIAN * Math.abs(theta));
                        mag[ia] = m;
                        mag[ib] = m;
                    }
                }
            }
        }
        return new Expected(new Ref(x.dims(), out), mag);
    }

    /**
     * Grouped-query attention. {@code allowed[b][h][i][j]} says whether query i may see key j,
     * {@code bias} is added to the scores (may be null). Rows with no allowed key are zeros.
     * Magnitude: Σ p_j|v_j|·(1 + Σ_d |q_d k_jd|·scale), the first-order effect of score error, plus
     * (at RTOL) the whole term of each weight that f32 may flush to zero.
     */
    public static Expected attention(Ref q, Ref k, Ref v, double scale, boolean[][][][] allowed, double[][][][] bias) {
        return attention(q, k, v, k, v, scale, allowed, bias);
    }

    /**
     * {@link #attention} whose magnitude takes the sizes of the terms that make each key and value
     * element ({@code kSizes}, {@code vSizes}, e.g. {@code |q·s| + |b|} of a quantized cache, which f32
     * may cancel) in place of their values.
     */
    public static Expected attention(Ref q, Ref k, Ref v, Ref kSizes, Ref vSizes, double scale, boolean[][][][] allowed,
                                     double[][][][] bias) {
        int bs = q.dim(0);
        int hq = q.dim(1);
        int tq = q.dim(2);
        int d = q.dim(3);
        int hkv = k.dim(1);
        int tk = k.dim(2);
        int dv = v.dim(3);
        int group = hq / hkv;
        int[] outDims = {bs, hq, tq, dv};
        double[] out = new double[Ref.size(outDims)];
        double[] mag = new double[out.length];
        for (int b = 0; b < bs; b++) {
            for (int h = 0; h < hq; h++) {
                int kh = h / group;
                for (int i = 0; i < tq; i++) {
                    double[] s = new double[tk];
                    double[] spread = new double[tk];
                    double max = Double.NEGATIVE_INFINITY;
                    for (int j = 0; j < tk; j++) {
                        double dot = 0;
                        double abs = 0;
                        int qAt = ((b * hq + h) * tq + i) * d;
                        int kAt = ((b * hkv + kh) * tk + j) * d;
                        for (int e = 0; e < d; e++) {
                            double prod = q.values()[qAt + e] * k.values()[kAt + e];
                            dot += prod;
                            abs += Math.abs(q.values()[qAt + e] * kSizes.values()[kAt + e]);
                        }
                        s[j] = dot * scale + (bias == null ? 0 : bias[b][h][i][j]);
                        spread[j] = abs * Math.abs(scale);
                        if (allowed[b][h][i][j]) max = Math.max(max, s[j]);
                    }
                    if (max == Double.NEGATIVE_INFINITY) continue; // every key masked: zeros
                    double sum = 0;
                    double[] p = new double[tk];
                    for (int j = 0; j < tk; j++) {
                        p[j] = allowed[b][h][i][j] ? Math.exp(s[j] - max) : 0;
                        sum += p[j];
                    }
                    for (int e = 0; e < dv; e++) {
                        double acc = 0;
                        double m = 0;
                        for (int j = 0; j < tk; j++) {
                            double vj = v.values()[((b * hkv + kh) * tk + j) * dv + e];
                            acc += p[j] / sum * vj;
                            double term = p[j] / sum * Math.abs(vSizes.values()[((b * hkv + kh) * tk + j) * dv + e]);
                            m += term * (1 + spread[j]);
                            // a weight e^(s - max) below f32's smallest normal (twice it: room for score error) may read
                            // as 0, as exps that flush do (the Java backend's, GPUs'): the term it carries is forgiven
                            // whole (m counts at RTOL), though times a large value it may lie above the smallest normal
                            if (p[j] > 0 && p[j] < 2 * Float.MIN_NORMAL) m += term / BackendTck.RTOL;
                        }
                        int at = ((b * hq + h) * tq + i) * dv + e;
                        out[at] = acc;
                        mag[at] = m;
                    }
                }
            }
        }
        return new Expected(new Ref(outDims, out), mag);
    }
}
