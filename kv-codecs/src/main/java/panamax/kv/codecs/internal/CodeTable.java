package panamax.kv.codecs.internal;

import java.util.Arrays;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Maps packed {@code bits}-wide codes to table values through {@link Ops} alone: the words are
 * unpacked by {@link Ops#dequantize} with unit scales and zero biases (the packed layout is MLX's,
 * see {@link BitPacker}), then the codes index the table with {@link Ops#takeAlongAxis}. One-bit
 * codes, which MLX's format lacks, are read as 2-bit pairs and looked up in two pair tables.
 * Owns its tensors.
 */
public final class CodeTable implements AutoCloseable {
    private final int bits;
    private final Tensor table;     // F32 [2^bits]
    private final Tensor firstOfPair;  // bits == 1: F32 [4], value of bit 0 of a 2-bit pair code
    private final Tensor secondOfPair; // bits == 1: F32 [4], value of bit 1
    private final Tensor one;   // F32 [1]
    private final Tensor zero;  // F32 [1]

    /**
     * @param backend the backend whose tensors it decodes (borrowed)
     * @param bits    code width: 1, 2, 3, 4, 5, 6 or 8
     * @param values  the value of each code, {@code 2^bits} entries
     */
    public CodeTable(Backend backend, int bits, float[] values) {
        if (bits == 7 || bits < 1 || bits > 8) throw new IllegalArgumentException("bits must be 1..6 or 8, found " + bits);
        if (values.length != 1 << bits) {
            throw new IllegalArgumentException("expected " + (1 << bits) + " table values for " + bits + " bits, found " + values.length);
        }
        this.bits = bits;
        table = backend.fromFloats(values, Shape.of(values.length), DType.F32);
        if (bits == 1) {
            // pair code v = b0 + 2·b1 (LSB first) → (values[b0], values[b1])
            float[] first = new float[4];
            float[] second = new float[4];
            for (int v = 0; v < 4; v++) {
                first[v] = values[v & 1];
                second[v] = values[v >> 1];
            }
            firstOfPair = backend.fromFloats(first, Shape.of(4), DType.F32);
            secondOfPair = backend.fromFloats(second, Shape.of(4), DType.F32);
        } else {
            firstOfPair = null;
            secondOfPair = null;
        }
        one = backend.fromFloats(new float[] {1f}, Shape.of(1), DType.F32);
        zero = backend.fromFloats(new float[] {0f}, Shape.of(1), DType.F32);
    }

    public int bits() {
        return bits;
    }

    /**
     * The table values of the {@code count} codes in each row of borrowed {@code packed [..., count·bits/32]}:
     * a new F32 {@code [..., count]}, owned by the caller.
     */
    public Tensor decode(Ops ops, Tensor packed, int count) {
        int width = bits == 1 ? 2 : bits;
        int columns = bits == 1 ? count / 2 : count;
        if ((long) columns * width != (long) packed.dim(-1) * 32) {
            throw new IllegalArgumentException("packed rows of " + packed.dim(-1) + " words do not hold " + count
                    + " codes of " + bits + " bits");
        }
        int group = Math.min(128, columns);
        if (columns % group != 0 || group < 32) {
            throw new IllegalArgumentException(count + " codes of " + bits + " bits do not form whole groups of 32");
        }
        int[] lead = Arrays.copyOf(packed.shape().dims(), packed.rank() - 1);
        Shape groups = BitPacker.shape(lead, columns / group);
        try (TensorScope s = new TensorScope()) {
            // views of one element: no per-step allocation proportional to the cache
            Tensor scales = s.add(ops.broadcastTo(one, groups));
            Tensor biases = s.add(ops.broadcastTo(zero, groups));
            var matrix = new QuantizedMatrix(packed, scales, biases, group, width); // borrows packed: never closed
            Tensor codes = s.add(ops.dequantize(matrix));
            if (bits != 1) return s.keep(gather(ops, s, table, codes));
            Tensor first = s.add(ops.reshape(s.add(gather(ops, s, firstOfPair, codes)), BitPacker.shape(lead, columns, 1)));
            Tensor second = s.add(ops.reshape(s.add(gather(ops, s, secondOfPair, codes)), BitPacker.shape(lead, columns, 1)));
            Tensor pairs = s.add(ops.concat(java.util.List.of(first, second), -1));
            return s.keep(ops.reshape(pairs, BitPacker.shape(lead, count)));
        }
    }

    /** The table values of unpacked codes {@code [...]} (floating or integer): a new F32 tensor of the same shape. */
    public Tensor lookup(Ops ops, Tensor codes) {
        try (TensorScope s = new TensorScope()) {
            return s.keep(gather(ops, s, table, codes));
        }
    }

    /**
     * {@code values[codes]} elementwise. An element gather along the last axis of the table
     * (broadcast over the codes' other axes) rather than {@code take}, which gathers whole rows.
     */
    public static Tensor gather(Ops ops, TensorScope s, Tensor values, Tensor codes) {
        Tensor index = s.add(ops.astype(codes, DType.I32));
        int[] ones = new int[codes.rank()];
        Arrays.fill(ones, 1);
        ones[ones.length - 1] = values.dim(0);
        Tensor row = s.add(ops.reshape(values, Shape.of(ones)));
        return ops.takeAlongAxis(row, index, -1);
    }

    @Override
    public void close() {
        table.close();
        if (firstOfPair != null) firstOfPair.close();
        if (secondOfPair != null) secondOfPair.close();
        one.close();
        zero.close();
    }
}
