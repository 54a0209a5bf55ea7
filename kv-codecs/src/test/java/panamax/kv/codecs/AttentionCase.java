package panamax.kv.codecs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.SplitMix64;

/**
 * A random attention problem drawn from one seed — batch, grouped heads, query and key lengths and
 * a mask (none, causal, windowed causal, explicit boolean with possibly empty rows, explicit
 * additive) — and the check that a codec's attention on its planes equals decoding the planes
 * and running the backend's attention.
 */
public record AttentionCase(int batch, int kvHeads, int queryHeads, int queryTokens, int keyTokens, int maskKind, long seed) {

    public static AttentionCase draw(long seed) {
        SplitMix64 r = new SplitMix64(seed);
        int kvHeads = 1 + (int) Long.remainderUnsigned(r.nextLong(), 2);
        int rep = new int[] {1, 2, 4}[(int) Long.remainderUnsigned(r.nextLong(), 3)];
        return new AttentionCase(1 + (int) Long.remainderUnsigned(r.nextLong(), 2), kvHeads, kvHeads * rep,
                1 + (int) Long.remainderUnsigned(r.nextLong(), 4), 1 + (int) Long.remainderUnsigned(r.nextLong(), 37),
                (int) Long.remainderUnsigned(r.nextLong(), 5), r.nextLong());
    }

    /** Largest |attend − sdpa(decode)| for {@code codec} (created for {@link #kvHeads} heads of {@code headDim}). */
    public double maxDifference(Backend b, KvCodec codec, int headDim, DType activation) {
        var ops = b.ops();
        float[] q = JavaBackendFixture.gaussians(seed, batch * queryHeads * queryTokens * headDim);
        float[] k = JavaBackendFixture.gaussians(seed + 1, batch * kvHeads * keyTokens * headDim);
        float[] v = JavaBackendFixture.gaussians(seed + 2, batch * kvHeads * keyTokens * headDim);
        try (Tensor qt = b.fromFloats(q, Shape.of(batch, queryHeads, queryTokens, headDim), activation);
             Tensor kt = b.fromFloats(k, Shape.of(batch, kvHeads, keyTokens, headDim), activation);
             Tensor vt = b.fromFloats(v, Shape.of(batch, kvHeads, keyTokens, headDim), activation);
             Tensor explicit = explicitMask(b)) {
            AttentionMask mask = switch (maskKind) {
                case 0 -> AttentionMask.NONE;
                case 1 -> AttentionMask.CAUSAL;
                case 2 -> new AttentionMask.Causal(3);
                default -> new AttentionMask.Explicit(explicit);
            };
            // half the cases read the planes as a layout does: views of the first Tk tokens of a larger buffer
            boolean views = (seed & 1) == 0;
            List<Tensor> kp = views ? sliced(b, codec, KvRole.KEY, kt) : codec.encode(KvRole.KEY, kt);
            List<Tensor> vp = views ? sliced(b, codec, KvRole.VALUE, vt) : codec.encode(KvRole.VALUE, vt);
            double scale = 1 / Math.sqrt(headDim);
            try (Tensor onPlanes = codec.attend(qt, kp, vp, scale, mask);
                 Tensor kd = codec.decode(KvRole.KEY, kp);
                 Tensor vd = codec.decode(KvRole.VALUE, vp);
                 Tensor reference = ops.scaledDotProductAttention(qt, kd, vd, scale, mask)) {
                assertTrue(onPlanes.shape().equals(reference.shape()), onPlanes.shape() + " vs " + reference.shape());
                assertTrue(onPlanes.dtype() == activation, "output dtype " + onPlanes.dtype());
                float[] a = b.toFloats(onPlanes);
                float[] r = b.toFloats(reference);
                for (float x : a) assertTrue(Float.isFinite(x), "non-finite attention output in " + this);
                return JavaBackendFixture.maxAbsDiff(a, r);
            } finally {
                kp.forEach(Tensor::close);
                vp.forEach(Tensor::close);
            }
        }
    }

    /** The planes of {@code x} followed by 7 more encoded tokens, as views of the first Tk tokens. */
    private List<Tensor> sliced(Backend b, KvCodec codec, KvRole role, Tensor x) {
        var ops = b.ops();
        float[] extra = JavaBackendFixture.gaussians(seed + 9, batch * kvHeads * 7 * x.dim(3));
        try (Tensor more = b.fromFloats(extra, Shape.of(batch, kvHeads, 7, x.dim(3)), x.dtype());
             Tensor longer = ops.concat(List.of(x, more), 2)) {
            List<Tensor> full = codec.encode(role, longer);
            try {
                return full.stream().map(p -> ops.slice(p, 2, 0, keyTokens)).toList();
            } finally {
                full.forEach(Tensor::close);
            }
        }
    }

    /** Mask kind 3: boolean [B, 1, Tq, Tk] with about a third blocked; kind 4: additive [1, Hq, Tq, Tk]. */
    private Tensor explicitMask(Backend b) {
        SplitMix64 r = new SplitMix64(seed + 3);
        if (maskKind == 4) {
            float[] m = new float[queryHeads * queryTokens * keyTokens];
            for (int i = 0; i < m.length; i++) m[i] = r.nextDouble() < 0.3 ? Float.NEGATIVE_INFINITY : (float) r.nextDouble();
            return b.fromFloats(m, Shape.of(1, queryHeads, queryTokens, keyTokens), DType.F32);
        }
        int[] m = new int[batch * queryTokens * keyTokens];
        for (int i = 0; i < m.length; i++) m[i] = r.nextDouble() < 0.33 ? 0 : 1;
        return b.fromInts(m, Shape.of(batch, 1, queryTokens, keyTokens), DType.BOOL);
    }
}
