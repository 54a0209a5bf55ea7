package panamax.kv.codecs.turboquant;

import panamax.api.tensor.Backend;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.BitPacker;
import panamax.kv.codecs.internal.CodeTable;
import panamax.kv.codecs.internal.SplitMix64;
import panamax.kv.codecs.internal.TensorScope;

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
    private final BitPacker packer;
    private final CodeTable signs;   // code 0 → −1, code 1 → +1

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
        packer = new BitPacker(backend, 1);
        signs = new CodeTable(backend, 1, new float[] {-1f, 1f});
    }

    /** {@code √(π/2)/n}, the estimator's scale before the residual norm. */
    double scale() {
        return Math.sqrt(Math.PI / 2) / n;
    }

    /** {@code S x} for each row of borrowed {@code x [..., n]}: a new f32 {@code [..., n]}. */
    Tensor project(Ops ops, Tensor x) {
        return ops.matmul(x, sTransposed);
    }

    /** The packed signs of {@code S r} for borrowed residuals {@code r [..., n]} (sign 0 counts as +). */
    Tensor encode(Ops ops, Tensor residual) {
        try (TensorScope sc = new TensorScope()) {
            Tensor projected = sc.add(project(ops, residual));
            Tensor zero = sc.add(ops.zeros(Shape.of(1), DType.F32));
            Tensor bits = sc.add(ops.astype(sc.add(ops.compare(Comparison.GREATER_EQUAL, projected, zero)), DType.F32));
            return sc.keep(packer.pack(ops, bits));
        }
    }

    /** The ±1 signs of borrowed packed words {@code [..., n/32]}: a new f32 {@code [..., n]}. */
    Tensor signs(Ops ops, Tensor packed) {
        return signs.decode(ops, packed, n);
    }

    /** {@code Sᵀ z} for each row of borrowed signs {@code z [..., n]}: a new f32 {@code [..., n]}. */
    Tensor transposedProject(Ops ops, Tensor z) {
        return ops.matmul(z, s);
    }

    @Override
    public void close() {
        s.close();
        sTransposed.close();
        packer.close();
        signs.close();
    }
}
