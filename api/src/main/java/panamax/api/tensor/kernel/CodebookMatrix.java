package panamax.api.tensor.kernel;

import java.util.Arrays;
import java.util.Set;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A matrix whose entries are table values scaled per row: {@code w[r, c] = codebook[code(r, c)]·rowScales[r]}
 * ({@code rowScales} null: 1). Each row's codes are {@code bits} wide, packed LSB first into the row's
 * little-endian uint32 bit stream — MLX's affine packing, so 3-, 5- and 6-bit codes straddle words.
 * This is the storage of vector quantizers with a non-uniform codebook (TurboQuant's Lloyd-Max
 * centroids, with the vector norms as row scales), which the affine {@link panamax.api.tensor.QuantizedMatrix} cannot express.
 *
 * <p>A view: it borrows its tensors and closes none of them.
 *
 * @param packed    U32 {@code [..., rows, cols·bits/32]}
 * @param codebook  F32 {@code [2^bits]}
 * @param rowScales F32 {@code [..., rows, 1]} with packed's leading axes, or null
 * @param bits      1, 2, 3, 4, 5, 6 or 8; {@code cols} must be a multiple of 32 (of 64 for 1-bit codes)
 * @since 0.2
 */
public record CodebookMatrix(Tensor packed, Tensor codebook, Tensor rowScales, int bits) {
    private static final Set<Integer> BITS = Set.of(1, 2, 3, 4, 5, 6, 8);

    public CodebookMatrix {
        if (!BITS.contains(bits)) throw new IllegalArgumentException("codebook bits: expected one of 1, 2, 3, 4, 5, 6, 8, found " + bits);
        if (packed.dtype() != DType.U32 || packed.rank() < 2) {
            throw new IllegalArgumentException("packed codes: expected U32 [..., rows, words], found " + packed.dtype() + " " + packed.shape());
        }
        long cols = (long) packed.dim(-1) * 32 / bits;
        if ((long) packed.dim(-1) * 32 % bits != 0 || cols % (bits == 1 ? 64 : 32) != 0) {
            throw new IllegalArgumentException("packed codes " + packed.shape() + ": rows of " + packed.dim(-1) + " words do not hold a multiple of "
                    + (bits == 1 ? 64 : 32) + " codes of " + bits + " bits");
        }
        if (codebook.rank() != 1 || codebook.dim(0) != 1 << bits || codebook.dtype() != DType.F32) {
            throw new IllegalArgumentException("codebook: expected F32 [" + (1 << bits) + "], found " + codebook.dtype() + " " + codebook.shape());
        }
        if (rowScales != null) {
            int[] want = packed.shape().dims().clone();
            want[want.length - 1] = 1;
            if (!Arrays.equals(rowScales.shape().dims(), want) || rowScales.dtype() != DType.F32) {
                throw new IllegalArgumentException("row scales: expected F32 " + new Shape(want) + ", found " + rowScales.dtype() + " "
                        + rowScales.shape());
            }
        }
    }

    /** Number of codes per row. */
    public int cols() {
        return packed.dim(-1) * 32 / bits;
    }

    /** Number of rows. */
    public int rows() {
        return packed.dim(-2);
    }
}
