package panamax.models.decoder;

import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;

/**
 * The token embedding {@code [vocab, hidden]}, dense or MLX-quantized; a quantized table is
 * dequantized only for the rows looked up. Doubles as the output projection of tied models. Owns
 * its tensors.
 */
final class Embedding implements AutoCloseable {
    private final Tensor table;              // (vocab, hidden), or null when quantized
    private final QuantizedMatrix quantized; // packed (vocab, hidden·bits/32), or null

    Embedding(Tensor table, QuantizedMatrix quantized) {
        this.table = table;
        this.quantized = quantized;
    }

    /** Rows {@code ids [B, T]} as f32 {@code [B, T, hidden]}, times {@code scale}. */
    Tensor lookup(Ops ops, Tensor ids, double scale) {
        Tensor rows;
        if (quantized != null) {
            try (Tensor p = ops.take(quantized.packed(), ids, 0);
                 Tensor s = ops.take(quantized.scales(), ids, 0);
                 Tensor b = ops.take(quantized.biases(), ids, 0)) {
                rows = ops.dequantize(new QuantizedMatrix(p, s, b, quantized.groupSize(), quantized.bits()));
            }
        } else {
            rows = ops.take(table, ids, 0);
        }
        try (rows; Tensor f = ops.astype(rows, DType.F32)) {
            return scale == 1.0 ? ops.copy(f) : ops.mul(f, scale);
        }
    }

    /** {@code x [N, hidden]} times the table transposed: f32 {@code [N, vocab]}. */
    Tensor project(Ops ops, Tensor x) {
        if (quantized != null) {
            Tensor y = ops.quantizedMatmul(x, quantized, true);
            if (y.dtype() == DType.F32) return y;
            try (y) {
                return ops.astype(y, DType.F32);
            }
        }
        try (Tensor wt = ops.transpose(table, 1, 0)) {
            return ops.matmul(x, wt);
        }
    }

    @Override
    public void close() {
        if (table != null) table.close();
        if (quantized != null) quantized.close();
    }
}
