package panamax.model.support.blocks;

import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;

/**
 * The token embedding {@code [vocab, hidden]}, dense or MLX-quantized; a quantized table is
 * dequantized only for the rows looked up. Doubles as the output projection of tied models. Owns
 * its tensors.
 */
public final class Embedding implements AutoCloseable {
    private final Tensor table;              // (vocab, hidden), or null when quantized
    private final QuantizedMatrix quantized; // packed (vocab, hidden·bits/32), or null

    private final Linear head;               // the same tensors as a projection; owns them

    public Embedding(Tensor table, QuantizedMatrix quantized) {
        this.table = table;
        this.quantized = quantized;
        this.head = quantized != null ? Linear.quantized(quantized, null) : Linear.dense(table, null);
    }

    /** Rows {@code ids [B, T]} as f32 {@code [B, T, hidden]}, times {@code scale}. */
    public Tensor lookup(Ops ops, Tensor ids, double scale) {
        Tensor rows;
        if (quantized != null) {
            // scales and biases widened to f32 first: dequantize computes in their dtype, and the
            // looked-up rows should carry f32 values like quantizedMatmul's weights, not bf16-rounded ones
            try (Tensor p = ops.take(quantized.packed(), ids, 0);
                 Tensor s16 = ops.take(quantized.scales(), ids, 0);
                 Tensor b16 = ops.take(quantized.biases(), ids, 0);
                 Tensor s = ops.astype(s16, DType.F32);
                 Tensor b = ops.astype(b16, DType.F32)) {
                rows = ops.dequantize(new QuantizedMatrix(p, s, b, quantized.groupSize(), quantized.bits()));
            }
        } else {
            rows = ops.take(table, ids, 0);
        }
        try (rows) {
            if (scale == 1.0) return ops.astype(rows, DType.F32);
            try (Tensor f = ops.astype(rows, DType.F32)) {
                return ops.mul(f, scale);
            }
        }
    }

    /** {@code x [N, hidden]} times the table transposed: f32 {@code [N, vocab]}. */
    public Tensor project(Ops ops, Tensor x) {
        return head.apply(ops, x);
    }

    @Override
    public void close() {
        head.close();
    }
}
