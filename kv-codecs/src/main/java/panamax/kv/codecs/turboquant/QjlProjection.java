package panamax.kv.codecs.turboquant;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.kv.codecs.internal.KvKernels;

/**
 * The 1-bit quantized Johnson–Lindenstrauss transform of a residual r (Zandieh et al., Definition 1):
 * stores {@code z = sign(S r)} and estimates {@code ⟨q, r⟩} as {@code ‖r‖·scale·⟨S q, z⟩}.
 *
 * <p>S is not the paper's dense n × n Gaussian matrix but a structured orthogonal one, per kv head:
 * {@code S = H·D₃·H·D₂·H·D₁}, three randomized Hadamard blocks (H normalized, Dₖ seeded ±1 signs), applied
 * in O(n log n) by {@link CodebookKernels#hadamardRotate} instead of n² FMAs per vector. Its rows are orthonormal
 * and close to uniformly distributed on the sphere (Yu et al., 2016, "Orthogonal Random Features", SORF),
 * so {@code E⟨u, q⟩·sign⟨u, r⟩ = E|u₁|·⟨q, r⟩/‖r‖} with {@code E|u₁| = Γ(n/2)/(√π·Γ((n+1)/2))}, the
 * spherical counterpart of the Gaussian rows' {@code √(2/π)}; hence {@code scale = 1/(n·E|u₁|)}.
 * Orthogonal rows carry less redundancy than independent ones: the estimator's variance is about a third
 * of the dense matrix's (measured in float64; docs/kv-codecs.md, "QJL"). Owns its tensors.
 */
final class QjlProjection implements AutoCloseable {
    private static final long QJL_STREAM = 0x514A4CL; // "QJL"
    static final int BLOCKS = 3;

    private final double scale;
    private final List<RandomizedHadamard> blocks = new ArrayList<>(); // H·D₁, H·D₂, H·D₃: per head, seeded
    private final Tensor signBook;   // F32 [2]: code 0 → −1, code 1 → +1

    QjlProjection(Backend backend, int heads, int n, long... streamIds) {
        this.scale = scaleFor(n);
        // block k draws its signs from [streamIds..., QJL, k, head]
        long[] ids = Arrays.copyOf(streamIds, streamIds.length + 1);
        ids[streamIds.length] = QJL_STREAM;
        try {
            for (int k = 0; k < BLOCKS; k++) blocks.add(RandomizedHadamard.block(backend, heads, n, k, ids));
            signBook = backend.fromFloats(new float[] {-1f, 1f}, Shape.of(2), DType.F32);
        } catch (RuntimeException e) {
            blocks.forEach(RandomizedHadamard::close);
            throw e;
        }
    }

    /** The sign tensors D₁, D₂, D₃ (borrowed), in the order {@link CodebookKernels#codebookQuantizeRotatedSketched} applies them. */
    List<Tensor> blocks() {
        return blocks.stream().map(RandomizedHadamard::signs).toList();
    }

    /** {@code 1/(n·E|u₁|)}, the estimator's scale before the residual norm, for u uniform on the n-sphere. */
    double scale() {
        return scale;
    }

    /** {@code 1/(n·E|u₁|)} for u uniform on the n-sphere. */
    static double scaleFor(int n) {
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
    Tensor project(KvKernels kernels, Tensor x) {
        Tensor y = blocks.getFirst().forward(kernels, x);
        for (RandomizedHadamard block : blocks.subList(1, BLOCKS)) {
            try (Tensor previous = y) {
                y = block.forward(kernels, previous);
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
        blocks.forEach(RandomizedHadamard::close);
        signBook.close();
    }
}
