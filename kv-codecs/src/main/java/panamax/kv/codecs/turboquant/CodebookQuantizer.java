package panamax.kv.codecs.turboquant;

import panamax.api.tensor.Backend;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.BitPacker;
import panamax.kv.codecs.internal.CodeTable;
import panamax.kv.codecs.internal.TensorScope;

/**
 * Quantizes rotated unit-vector coordinates to the Lloyd-Max codebook of their dimension, packs
 * the codes into U32 words, and maps packed codes back to centroids — all through {@link Ops}.
 * Encoding is a branch-free binary search over the sorted decision boundaries: {@code bits} rounds
 * of gather-compare-add, so memory stays proportional to the input for any width. Owns its tensors.
 */
final class CodebookQuantizer implements AutoCloseable {
    private final LloydMaxCodebook codebook;
    private final Tensor boundaries; // F32 [2^bits − 1]
    private final CodeTable table;
    private final BitPacker packer;

    CodebookQuantizer(Backend backend, int dimension, int bits) {
        codebook = LloydMaxCodebook.of(dimension, bits);
        float[] b = codebook.boundariesAsFloats();
        boundaries = backend.fromFloats(b, Shape.of(b.length), DType.F32);
        table = new CodeTable(backend, bits, codebook.centroidsAsFloats());
        packer = new BitPacker(backend, bits);
    }

    LloydMaxCodebook codebook() {
        return codebook;
    }

    /** The code of each element of borrowed f32 {@code y}: a new f32 tensor of integral values. */
    Tensor codes(Ops ops, Tensor y) {
        try (TensorScope s = new TensorScope()) {
            Tensor code = s.add(ops.zeros(y.shape(), DType.F32));
            for (int k = codebook.bits() - 1; k >= 0; k--) {
                int step = 1 << k;
                // y lies above at least code + step boundaries iff y > boundaries[code + step − 1]
                Tensor threshold = s.add(CodeTable.gather(ops, s, boundaries, s.add(ops.add(code, step - 1))));
                Tensor above = s.add(ops.astype(s.add(ops.compare(Comparison.GREATER, y, threshold)), DType.F32));
                code = s.add(ops.add(code, s.add(ops.mul(above, step))));
            }
            return s.keep(code);
        }
    }

    /** Borrowed codes {@code [..., n]} packed into a new U32 {@code [..., n·bits/32]}. */
    Tensor pack(Ops ops, Tensor codes) {
        return packer.pack(ops, codes);
    }

    /** The centroids of borrowed codes: a new f32 tensor of the same shape. */
    Tensor centroids(Ops ops, Tensor codes) {
        return table.lookup(ops, codes);
    }

    /** The centroids of borrowed packed codes {@code [..., n·bits/32]}: a new f32 {@code [..., n]}. */
    Tensor unpackCentroids(Ops ops, Tensor packed, int n) {
        return table.decode(ops, packed, n);
    }

    @Override
    public void close() {
        boundaries.close();
        table.close();
        packer.close();
    }
}
