package panamax.kv.codecs.turboquant;

import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.CodebookMatrix;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.SplitMix64;

/**
 * The 1-bit quantized Johnson–Lindenstrauss transform of a residual r (Zandieh et al., Definition 1):
 * stores {@code z = sign(S r)} and estimates {@code ⟨q, r⟩} as {@code ‖r‖·scale·⟨S q, z⟩}.
 *
 * <p>S is not the paper's dense n × n Gaussian matrix but a structured orthogonal one, per kv head:
 * {@code S = H·D₃·H·D₂·H·D₁}, three randomized Hadamard blocks (H normalized, Dₖ seeded ±1 signs), applied
 * in O(n log n) by {@link Ops#hadamardRotate} instead of n² FMAs per vector. Its rows are orthonormal
 * and close to uniformly distributed on the sphere (Yu et al., 2016, "Orthogonal Random Features", SORF),
 * so {@code E⟨u, q⟩·sign⟨u, r⟩ = E|u₁|·⟨q, r⟩/‖r‖} with {@code E|u₁| = Γ(n/2)/(√π·Γ((n+1)/2))}, the
 * spherical counterpart of the Gaussian rows' {@code √(2/π)}; hence {@code scale = 1/(n·E|u₁|)}.
 * Orthogonal rows carry less redundancy than independent ones: the estimator's variance is about a third
 * of the dense matrix's (docs/kv-codecs.md, "Session 12"). Owns its tensors.
 */
final class QjlProjection implements AutoCloseable {
    private static final long QJL_STREAM = 0x514A4CL; // "QJL"
    static final int BLOCKS = 3;

    private final int n;
    private final Tensor[] signs = new Tensor[BLOCKS]; // F32 [heads, 1, n] each: D₁, D₂, D₃
    private final Tensor signBook;   // F32 [2]: code 0 → −1, code 1 → +1

    QjlProjection(Backend backend, int heads, int n, long... streamIds) {
        this.n = n;
        for (int k = 0; k < BLOCKS; k++) {
            float[] all = new float[heads * n];
            for (int h = 0; h < heads; h++) System.arraycopy(signs(n, k, h, streamIds), 0, all, h * n, n);
            signs[k] = backend.fromFloats(all, Shape.of(heads, 1, n), DType.F32);
        }
        signBook = backend.fromFloats(new float[] {-1f, 1f}, Shape.of(2), DType.F32);
    }

    /** The sign tensors D₁, D₂, D₃ (borrowed), in the order {@link Ops#codebookQuantizeRotatedSketched} applies them. */
    List<Tensor> blocks() {
        return List.of(signs);
    }

    /** The ±1 signs of block {@code k} of {@code head}: a pure function of the ids. */
    static float[] signs(int n, int k, int head, long... streamIds) {
        long[] ids = new long[streamIds.length + 3];
        System.arraycopy(streamIds, 0, ids, 0, streamIds.length);
        ids[streamIds.length] = QJL_STREAM;
        ids[streamIds.length + 1] = k;
        ids[streamIds.length + 2] = head;
        SplitMix64 rng = SplitMix64.forStream(ids);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = rng.nextSign();
        return out;
    }

    /** {@code 1/(n·E|u₁|)}, the estimator's scale before the residual norm, for u uniform on the n-sphere. */
    double scale() {
        return scale(n);
    }

    static double scale(int n) {
        double meanAbsCoordinate = Math.exp(logGamma(n / 2.0) - logGamma((n + 1) / 2.0)) / Math.sqrt(Math.PI);
        return 1 / (n * meanAbsCoordinate);
    }

    /** ln Γ(x) for x ≥ 1/2 by Lanczos (g = 7, nine terms): relative error below 1e-13 here. */
    static double logGamma(double x) {
        double[] c = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
                -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
                1.5056327351493116e-7};
        double xm = x - 1;
        double sum = c[0];
        for (int i = 1; i < c.length; i++) sum += c[i] / (xm + i);
        double t = xm + 7.5;
        return 0.5 * Math.log(2 * Math.PI) + (xm + 0.5) * Math.log(t) - t + Math.log(sum);
    }

    /** {@code S x} for each row of borrowed {@code x [B, heads, T, n]}: a new f32 {@code [B, heads, T, n]}. */
    Tensor project(Ops ops, Tensor x) {
        Tensor y = ops.hadamardRotate(x, signs[0], false);
        for (int k = 1; k < BLOCKS; k++) {
            try (Tensor previous = y) {
                y = ops.hadamardRotate(previous, signs[k], false);
            }
        }
        return y;
    }

    /** A view of borrowed packed signs {@code [..., n/32]} as a ±1 codebook matrix with borrowed row scales (or null). */
    CodebookMatrix signs(Tensor packed, Tensor rowScales) {
        return new CodebookMatrix(packed, signBook, rowScales, 1);
    }

    @Override
    public void close() {
        for (Tensor t : signs) t.close();
        signBook.close();
    }
}
