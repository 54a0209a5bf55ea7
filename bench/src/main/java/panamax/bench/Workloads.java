package panamax.bench;

import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;

/**
 * The shapes every kernel benchmark uses and the bytes or FLOPs one operation moves, shared by the
 * benchmarks (which check their tensors against these numbers) and by {@link PerformanceReport}
 * (which turns times into rates with them).
 */
final class Workloads {
    /** The reduction dimension K of every product: a 7–8B model's hidden size. */
    static final int HIDDEN = 4096;
    /** Tokens of the prefill benchmark's activation matrix. */
    static final int PREFILL_TOKENS = 512;
    /** Output rows of the prefill weight matrix. */
    static final int PREFILL_OUT = 4096;
    /** Affine quantization of {@link MatVecQ4}: MLX's default group size, 4 bits. */
    static final int GROUP_SIZE = 64;
    static final int BITS = 4;
    /** Seed of every random weight and activation, so each run measures the same data. */
    static final long SEED = 0x5eed_2026L;

    /**
     * Minimum bytes a matrix-vector benchmark cycles through: like {@link ReadBandwidth}'s segment,
     * far beyond any last-level cache (32 MiB on the reference machine, 300 MiB on some servers), so
     * each operation reads its weights from DRAM as a model's sequence of layers does.
     */
    static final long ROTATION_BYTES = 1L << 30;

    private Workloads() {
    }

    /** How many copies of a {@code bytesPerCopy}-byte matrix fill {@link #ROTATION_BYTES}, at least one. */
    static int copiesFor(long bytesPerCopy) {
        return (int) Math.max(1, (ROTATION_BYTES + bytesPerCopy - 1) / bytesPerCopy);
    }

    /** Bytes of a bf16 weight matrix [n, HIDDEN]: what one matrix-vector product must read. */
    static long bf16MatrixBytes(int n) {
        return (long) n * HIDDEN * DType.BF16.byteSize();
    }

    /**
     * Bytes of the same matrix quantized with {@link #BITS} bits in groups of {@link #GROUP_SIZE}:
     * packed codes plus bf16 scales and biases (the quantized tensors take the weights' dtype).
     */
    static long quantizedMatrixBytes(int n) {
        long packed = (long) n * HIDDEN * BITS / 8;
        long groups = (long) n * (HIDDEN / GROUP_SIZE);
        return packed + 2 * groups * DType.BF16.byteSize();
    }

    /** FLOPs of the prefill product [PREFILL_TOKENS, HIDDEN] × [HIDDEN, PREFILL_OUT] (one multiply-add = 2). */
    static double prefillFlops() {
        return 2.0 * PREFILL_TOKENS * HIDDEN * PREFILL_OUT;
    }

    /** Storage bytes of a tensor: its size times its dtype's byte size. */
    static long storageBytes(Tensor t) {
        return t.size() * t.dtype().byteSize();
    }

    /** Storage bytes of the three tensors of a quantized matrix. */
    static long storageBytes(QuantizedMatrix q) {
        return storageBytes(q.packed()) + storageBytes(q.scales()) + storageBytes(q.biases());
    }
}
