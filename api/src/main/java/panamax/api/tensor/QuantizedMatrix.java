package panamax.api.tensor;

/**
 * A matrix in MLX's affine group-quantized format: each row of {@code cols} values is split into
 * groups of {@code groupSize}; element {@code i} is stored as a {@code bits}-wide code, LSB first,
 * in the row's little-endian uint32 bit stream; the value is {@code code·scale + bias} of its group.
 * Owns its three tensors; closing it closes them.
 *
 * @param packed    U32 [..., rows, cols·bits/32]
 * @param scales    float [..., rows, cols/groupSize]
 * @param biases    float [..., rows, cols/groupSize], same dtype as scales
 * @param groupSize 32, 64 or 128
 * @param bits      2, 3, 4, 5, 6 or 8
 */
public record QuantizedMatrix(Tensor packed, Tensor scales, Tensor biases, int groupSize, int bits) implements AutoCloseable {
    public QuantizedMatrix {
        if (packed.dtype() != DType.U32) throw new IllegalArgumentException("packed: expected U32, found " + packed.dtype());
        if (!scales.shape().equals(biases.shape())) {
            throw new IllegalArgumentException("biases: expected shape " + scales.shape() + ", found " + biases.shape());
        }
    }

    /** Number of unpacked columns (the quantized axis). */
    public int cols() {
        return scales.dim(-1) * groupSize;
    }

    /** Number of rows. */
    public int rows() {
        return packed.dim(-2);
    }

    @Override
    public void close() {
        packed.close();
        scales.close();
        biases.close();
    }
}
