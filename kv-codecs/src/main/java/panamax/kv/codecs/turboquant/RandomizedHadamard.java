package panamax.kv.codecs.turboquant;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.SplitMix64;
import panamax.kv.codecs.internal.TensorScope;

/**
 * The seeded random rotation of each kv head: {@code R x = H·diag(signs)·pad(x)}, with {@code H}
 * the normalized Walsh–Hadamard matrix of the padded dimension n (a power of two) and one seeded
 * ±1 sign vector per head. {@code H} is applied as a fast transform: ⌈log₁₆ n⌉ stages, each one
 * matmul with a normalized 16 × 16 (or smaller) Hadamard block over one group of index bits, so a
 * vector costs O(n log n) (at most 16 multiply-adds per coordinate per stage). {@code H} is symmetric and orthogonal, hence
 * {@code R⁻¹ y = unpad(signs ⊙ H y)}. Owns its tensors; thread-safe once built.
 */
final class RandomizedHadamard implements AutoCloseable {
    private static final int MAX_RADIX = 16;
    private static final long ROTATION_STREAM = 0x524F54L; // "ROT"

    private final int headDim;
    private final int paddedDim;
    private final int[] radices;
    private final Tensor signs;          // F32 [heads, 1, n]
    private final List<Tensor> stages;   // F32 [r, r] normalized Hadamard blocks, one per radix

    /**
     * @param streamIds seeds identifying the layer (model seed, user seed, layer); the head index is appended
     */
    RandomizedHadamard(Backend backend, int heads, int headDim, int paddedDim, long... streamIds) {
        if (Integer.bitCount(paddedDim) != 1 || paddedDim < headDim) {
            throw new IllegalArgumentException("padded dim must be a power of two >= " + headDim + ", found " + paddedDim);
        }
        this.headDim = headDim;
        this.paddedDim = paddedDim;
        float[] all = new float[heads * paddedDim];
        for (int h = 0; h < heads; h++) {
            System.arraycopy(signs(paddedDim, h, streamIds), 0, all, h * paddedDim, paddedDim);
        }
        signs = backend.fromFloats(all, Shape.of(heads, 1, paddedDim), DType.F32);
        List<Integer> rs = new ArrayList<>();
        for (int h = 1; h < paddedDim; h *= Math.min(MAX_RADIX, paddedDim / h)) rs.add(Math.min(MAX_RADIX, paddedDim / h));
        radices = rs.stream().mapToInt(Integer::intValue).toArray();
        stages = new ArrayList<>();
        for (int r : radices) stages.add(backend.fromFloats(hadamard(r), Shape.of(r, r), DType.F32));
    }

    /** The ±1 signs of {@code head}, as the codec draws them: a pure function of the ids. */
    static float[] signs(int paddedDim, int head, long... streamIds) {
        long[] ids = new long[streamIds.length + 2];
        System.arraycopy(streamIds, 0, ids, 0, streamIds.length);
        ids[streamIds.length] = ROTATION_STREAM;
        ids[streamIds.length + 1] = head;
        SplitMix64 rng = SplitMix64.forStream(ids);
        float[] out = new float[paddedDim];
        for (int i = 0; i < paddedDim; i++) out[i] = rng.nextSign();
        return out;
    }

    /** The normalized Walsh–Hadamard matrix of order r: {@code (−1)^popcount(i & j) / √r}. */
    static float[] hadamard(int r) {
        float[] m = new float[r * r];
        float norm = (float) (1 / Math.sqrt(r));
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < r; j++) m[i * r + j] = Integer.bitCount(i & j) % 2 == 0 ? norm : -norm;
        }
        return m;
    }

    int paddedDim() {
        return paddedDim;
    }

    /** {@code R x} of borrowed f32 {@code x [B, heads, T, headDim]}: a new f32 {@code [B, heads, T, n]}. */
    Tensor forward(Ops ops, Tensor x) {
        try (TensorScope s = new TensorScope()) {
            Tensor padded = x;
            if (paddedDim > headDim) {
                Tensor zeros = s.add(ops.zeros(x.shape().with(-1, paddedDim - headDim), DType.F32));
                padded = s.add(ops.concat(List.of(x, zeros), -1));
            }
            Tensor signed = s.add(ops.mul(padded, signs));
            return s.keep(transform(ops, signed));
        }
    }

    /** {@code R⁻¹ y} of borrowed f32 {@code y [B, heads, T, n]}: a new f32 {@code [B, heads, T, headDim]}. */
    Tensor inverse(Ops ops, Tensor y) {
        try (TensorScope s = new TensorScope()) {
            Tensor unsigned = s.add(ops.mul(s.add(transform(ops, y)), signs));
            return s.keep(paddedDim > headDim ? ops.slice(unsigned, -1, 0, headDim) : ops.copy(unsigned));
        }
    }

    /**
     * The fast normalized Walsh–Hadamard transform along the last axis of borrowed {@code x}. Each
     * stage is one plain 2-D matmul {@code [rows·n/r, r] × H_r} over the stage's index bits, moved
     * last by a transpose when they are not the lowest ones; backends run such GEMMs far better
     * than a tiny matrix broadcast over a huge batch.
     */
    Tensor transform(Ops ops, Tensor x) {
        int rows = (int) (x.size() / paddedDim);
        try (TensorScope s = new TensorScope()) {
            Tensor current = s.add(ops.reshape(x, Shape.of(rows, paddedDim)));
            int stride = 1;
            for (int i = 0; i < radices.length; i++) {
                int r = radices[i];
                int blocks = rows * (paddedDim / (r * stride));
                Tensor mixed;
                if (stride == 1) {
                    // H is symmetric, so x·H applies it to every row of r consecutive coordinates
                    mixed = s.add(ops.matmul(s.add(ops.reshape(current, Shape.of(blocks, r))), stages.get(i)));
                } else {
                    // index = (block·r + k)·stride + j: bring k last, mix, put it back
                    Tensor moved = s.add(ops.transpose(s.add(ops.reshape(current, Shape.of(blocks, r, stride))), 0, 2, 1));
                    Tensor product = s.add(ops.matmul(s.add(ops.reshape(moved, Shape.of(blocks * stride, r))), stages.get(i)));
                    Tensor back = s.add(ops.transpose(s.add(ops.reshape(product, Shape.of(blocks, stride, r))), 0, 2, 1));
                    mixed = s.add(ops.copy(back));
                }
                current = s.add(ops.reshape(mixed, Shape.of(rows, paddedDim)));
                stride *= r;
            }
            return s.keep(ops.reshape(current, x.shape()));
        }
    }

    @Override
    public void close() {
        signs.close();
        stages.forEach(Tensor::close);
    }
}
