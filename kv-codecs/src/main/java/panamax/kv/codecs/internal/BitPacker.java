package panamax.kv.codecs.internal;

import java.util.Arrays;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Packs integer codes into uint32 words in MLX's layout — each row one LSB-first bit stream across
 * little-endian words, so 3-bit codes straddle words — using only {@link Ops}, so it runs on any
 * backend. Words are assembled from two 16-bit halves computed exactly in f32, then joined as
 * {@code lo + hi·65536} in U32 arithmetic, where no intermediate exceeds 2³² − 1. The packed
 * words decode with {@link Ops#dequantize} (see {@link CodeTable}). Owns its constant tensors.
 */
public final class BitPacker implements AutoCloseable {
    private final int bits;
    private final Tensor fieldWeights; // [16/bits] = 2^(bits·i), when bits divides 16
    private final Tensor bitWeights;   // [16] = 2^i, for widths that straddle words
    private final Tensor halfShift;    // U32 [1] = 65536

    /**
     * @param backend the backend whose tensors it packs (borrowed)
     * @param bits    code width, 1..8
     */
    public BitPacker(Backend backend, int bits) {
        if (bits < 1 || bits > 8) throw new IllegalArgumentException("bits must be in 1..8, found " + bits);
        this.bits = bits;
        if (16 % bits == 0) {
            float[] w = new float[16 / bits];
            for (int i = 0; i < w.length; i++) w[i] = (float) (1 << (bits * i));
            fieldWeights = backend.fromFloats(w, Shape.of(w.length), DType.F32);
            bitWeights = null;
        } else {
            float[] w = new float[16];
            for (int i = 0; i < 16; i++) w[i] = (float) (1 << i);
            bitWeights = backend.fromFloats(w, Shape.of(16), DType.F32);
            fieldWeights = null;
        }
        halfShift = backend.fromInts(new int[] {1 << 16}, Shape.of(1), DType.U32);
    }

    public int bits() {
        return bits;
    }

    /**
     * Packs borrowed {@code codes [..., n]} (floating, integral values in {@code [0, 2^bits)}) into a
     * new U32 {@code [..., n·bits/32]}, owned by the caller.
     *
     * @throws IllegalArgumentException when {@code n·bits} is not a multiple of 32
     */
    public Tensor pack(Ops ops, Tensor codes) {
        int n = codes.dim(-1);
        if (n * bits % 32 != 0) {
            throw new IllegalArgumentException("cannot pack " + n + " codes of " + bits + " bits into whole uint32 words");
        }
        int words = n * bits / 32;
        int[] lead = Arrays.copyOf(codes.shape().dims(), codes.rank() - 1);
        try (TensorScope s = new TensorScope()) {
            Tensor f32 = s.add(ops.astype(codes, DType.F32));
            Tensor halves; // [..., words, 2], each half < 65536 and exact in f32
            if (fieldWeights != null) {
                Tensor fields = s.add(ops.reshape(f32, shape(lead, words, 2, 16 / bits)));
                halves = s.add(ops.sum(s.add(ops.mul(fields, fieldWeights)), -1, false));
            } else {
                Tensor stream = s.add(ops.reshape(s.add(bitStream(ops, s, f32)), shape(lead, words, 2, 16)));
                halves = s.add(ops.sum(s.add(ops.mul(stream, bitWeights)), -1, false));
            }
            Tensor halvesInt = s.add(ops.astype(halves, DType.U32));
            Tensor lo = s.add(ops.slice(halvesInt, -1, 0, 1));
            Tensor hi = s.add(ops.slice(halvesInt, -1, 1, 2));
            Tensor word = s.add(ops.add(lo, s.add(ops.mul(hi, halfShift))));
            return s.keep(ops.reshape(word, shape(lead, words)));
        }
    }

    /** The codes' bits {@code [..., n·bits]}, bit j of code i at {@code i·bits + j} (LSB first). */
    private Tensor bitStream(Ops ops, TensorScope s, Tensor codes) {
        int n = codes.dim(-1);
        int[] lead = Arrays.copyOf(codes.shape().dims(), codes.rank() - 1);
        // floor(code / 2^j) for j = 0..bits; truncation toward zero is floor for these non-negative values
        Tensor[] quotients = new Tensor[bits + 1];
        quotients[0] = codes;
        for (int j = 1; j <= bits; j++) {
            Tensor scaled = s.add(ops.mul(codes, 1.0 / (1 << j)));
            quotients[j] = s.add(ops.astype(s.add(ops.astype(scaled, DType.I32)), DType.F32));
        }
        Tensor[] bitsOf = new Tensor[bits];
        for (int j = 0; j < bits; j++) {
            Tensor bit = s.add(ops.sub(quotients[j], s.add(ops.mul(quotients[j + 1], 2.0))));
            bitsOf[j] = s.add(ops.reshape(bit, shape(lead, n, 1)));
        }
        Tensor stacked = s.add(ops.concat(Arrays.asList(bitsOf), -1));
        return ops.reshape(stacked, shape(lead, n * bits));
    }

    static Shape shape(int[] lead, int... tail) {
        int[] d = Arrays.copyOf(lead, lead.length + tail.length);
        System.arraycopy(tail, 0, d, lead.length, tail.length);
        return new Shape(d);
    }

    @Override
    public void close() {
        if (fieldWeights != null) fieldWeights.close();
        if (bitWeights != null) bitWeights.close();
        halfShift.close();
    }
}
