package panamax.kv.codecs.turboquant;

import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.CodebookMatrix;
import panamax.kv.codecs.internal.SplitMix64;

/**
 * The 1-bit quantized Johnson–Lindenstrauss transform of a residual r (Zandieh et al., Definition 1):
 * stores {@code z = sign(S r)} with S an n × n matrix of seeded standard normals, and estimates
 * {@code ⟨q, r⟩} without bias as {@code ‖r‖·√(π/2)/n·⟨S q, z⟩}. One S per layer. Owns its tensors.
 */
final class QjlProjection implements AutoCloseable {
    private static final long QJL_STREAM = 0x514A4CL; // "QJL"

    private final int n;
    private final Tensor s;          // F32 [n, n]
    private final Tensor sTransposed; // F32 [n, n]
    private final Tensor zero;       // F32 [1]: the one boundary of sign codes
    private final Tensor signBook;   // F32 [2]: code 0 → −1, code 1 → +1

    QjlProjection(Backend backend, int n, long... streamIds) {
        this.n = n;
        long[] ids = new long[streamIds.length + 1];
        System.arraycopy(streamIds, 0, ids, 0, streamIds.length);
        ids[streamIds.length] = QJL_STREAM;
        SplitMix64 rng = SplitMix64.forStream(ids);
        float[] m = new float[n * n];
        float[] t = new float[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float g = (float) rng.nextGaussian();
                m[i * n + j] = g;
                t[j * n + i] = g;
            }
        }
        s = backend.fromFloats(m, Shape.of(n, n), DType.F32);
        sTransposed = backend.fromFloats(t, Shape.of(n, n), DType.F32);
        zero = backend.fromFloats(new float[] {0f}, Shape.of(1), DType.F32);
        signBook = backend.fromFloats(new float[] {-1f, 1f}, Shape.of(2), DType.F32);
    }

    /** {@code √(π/2)/n}, the estimator's scale before the residual norm. */
    double scale() {
        return Math.sqrt(Math.PI / 2) / n;
    }

    /** {@code S x} for each row of borrowed {@code x [..., n]}: a new f32 {@code [..., n]}. */
    Tensor project(Ops ops, Tensor x) {
        return ops.matmul(x, sTransposed);
    }

    /**
     * The packed signs of {@code S r} for borrowed residuals {@code r [..., n]} (code 1 where positive),
     * quantized and packed by {@link Ops#codebookQuantize}: a new U32 {@code [..., n/32]}.
     */
    Tensor encode(Ops ops, Tensor residual) {
        try (Tensor projected = project(ops, residual)) {
            CodebookMatrix q = ops.codebookQuantize(projected, signBook, zero, 1);
            q.rowScales().close();
            return q.packed();
        }
    }

    /** A view of borrowed packed signs {@code [..., n/32]} as a ±1 codebook matrix with borrowed row scales (or null). */
    CodebookMatrix signs(Tensor packed, Tensor rowScales) {
        return new CodebookMatrix(packed, signBook, rowScales, 1);
    }

    /** {@code Sᵀ z} for each row of borrowed signs {@code z [..., n]}: a new f32 {@code [..., n]}. */
    Tensor transposedProject(Ops ops, Tensor z) {
        return ops.matmul(z, s);
    }

    @Override
    public void close() {
        s.close();
        sTransposed.close();
        zero.close();
        signBook.close();
    }
}
