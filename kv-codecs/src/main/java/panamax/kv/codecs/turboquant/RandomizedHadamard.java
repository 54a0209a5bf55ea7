package panamax.kv.codecs.turboquant;

import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.KvKernels;
import panamax.kv.codecs.internal.SplitMix64;

/**
 * The seeded random rotation of each kv head: {@code R x = H·diag(signs)·pad(x)}, with {@code H}
 * the normalized Walsh–Hadamard matrix of the padded dimension n (a power of two) and one seeded
 * ±1 sign vector per head. Applied through {@link panamax.api.tensor.kernel.CodebookKernels#hadamardRotate}, which a fast backend runs as
 * the O(n log n) butterfly (the Java backend: a vector FWHT per row) and other backends at least
 * compose correctly. {@code H} is symmetric and orthogonal, hence {@code R⁻¹ y = unpad(signs ⊙ H y)}.
 * Owns its tensors; thread-safe once built.
 */
final class RandomizedHadamard implements AutoCloseable {
    private static final long ROTATION_STREAM = 0x524F54L; // "ROT"

    private final int headDim;
    private final int paddedDim;
    private final Tensor signs;          // F32 [heads, 1, n]

    /**
     * @param streamIds seeds identifying the layer (model seed, user seed, layer); the head index is appended
     */
    RandomizedHadamard(Backend backend, int heads, int headDim, int paddedDim, long... streamIds) {
        this(backend, heads, headDim, paddedDim, ROTATION_STREAM, streamIds);
    }

    /**
     * A rotation of n (no padding) whose signs are drawn from stream {@code stream} after {@code streamIds}, per head:
     * another seeded randomized Hadamard block of the same layer (QJL's sketch is three of them).
     */
    static RandomizedHadamard block(Backend backend, int heads, int n, long stream, long[] streamIds) {
        return new RandomizedHadamard(backend, heads, n, n, stream, streamIds);
    }

    private RandomizedHadamard(Backend backend, int heads, int headDim, int paddedDim, long stream, long[] streamIds) {
        if (Integer.bitCount(paddedDim) != 1 || paddedDim < headDim) {
            throw new IllegalArgumentException("padded dim must be a power of two >= " + headDim + ", found " + paddedDim);
        }
        this.headDim = headDim;
        this.paddedDim = paddedDim;
        float[] all = new float[heads * paddedDim];
        for (int h = 0; h < heads; h++) {
            System.arraycopy(signs(paddedDim, stream, h, streamIds), 0, all, h * paddedDim, paddedDim);
        }
        signs = backend.fromFloats(all, Shape.of(heads, 1, paddedDim), DType.F32);
    }

    /** The ±1 signs of {@code head}, as the codec draws them: a pure function of the ids. */
    static float[] signs(int paddedDim, int head, long... streamIds) {
        return signs(paddedDim, ROTATION_STREAM, head, streamIds);
    }

    /** The ±1 signs of {@code head} drawn from the stream {@code [streamIds..., stream, head]}. */
    private static float[] signs(int paddedDim, long stream, int head, long[] streamIds) {
        long[] ids = new long[streamIds.length + 2];
        System.arraycopy(streamIds, 0, ids, 0, streamIds.length);
        ids[streamIds.length] = stream;
        ids[streamIds.length + 1] = head;
        SplitMix64 rng = SplitMix64.forStream(ids);
        float[] out = new float[paddedDim];
        for (int i = 0; i < paddedDim; i++) out[i] = rng.nextSign();
        return out;
    }

    /** True when head vectors are zero-padded to the power of two n (head dim not a power of two, or below 64). */
    boolean padded() {
        return paddedDim != headDim;
    }

    /** The ±1 signs {@code [heads, 1, n]}, borrowed (owned by this rotation). */
    Tensor signs() {
        return signs;
    }

    int paddedDim() {
        return paddedDim;
    }

    /** {@code R x} of borrowed floating {@code x [B, heads, T, headDim]}: a new f32 {@code [B, heads, T, n]}. */
    Tensor forward(KvKernels kernels, Tensor x) {
        if (paddedDim == headDim) return kernels.codebook().hadamardRotate(x, signs, false);
        try (Tensor padded = pad(kernels.ops(), x)) {
            return kernels.codebook().hadamardRotate(padded, signs, false);
        }
    }

    /** Borrowed {@code x [B, heads, T, headDim]} followed by zeros up to n: a new {@code [B, heads, T, n]} of x's dtype. */
    Tensor pad(Ops ops, Tensor x) {
        try (Tensor zeros = ops.zeros(x.shape().with(-1, paddedDim - headDim), x.dtype())) {
            return ops.concat(List.of(x, zeros), -1);
        }
    }

    /** {@code R⁻¹ y} of borrowed f32 {@code y [B, heads, T, n]}: a new f32 {@code [B, heads, T, headDim]}. */
    Tensor inverse(KvKernels kernels, Tensor y) {
        if (paddedDim == headDim) return kernels.codebook().hadamardRotate(y, signs, true);
        try (Tensor unsigned = kernels.codebook().hadamardRotate(y, signs, true)) {
            return kernels.ops().slice(unsigned, -1, 0, headDim);
        }
    }

    @Override
    public void close() {
        signs.close();
    }
}
