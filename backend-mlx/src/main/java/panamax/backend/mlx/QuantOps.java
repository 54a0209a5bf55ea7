package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;
import panamax.api.error.InvalidParameterException;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;

/**
 * MLX's own affine {@code quantize}, {@code dequantize} and {@code quantized_matmul} (mode
 * {@code "affine"}). Dequantization and the matmul run on f32 scales and biases so a 16-bit
 * result is rounded once, as the api requires.
 */
final class QuantOps extends OpFamily {
    static final Set<Integer> BITS = Set.of(2, 3, 4, 5, 6, 8);
    static final Set<Integer> GROUP_SIZES = Set.of(32, 64, 128);
    /**
     * From this many rows of x on, dequantize + BLAS beats MLX's CPU quantized matmul: on the 1b
     * preset here MLX's scalar dequantize costs about as much as 6 rows of its scalar quantized matmul.
     */
    static final int BLAS_ROWS = 8;

    QuantOps(MlxBackend backend) {
        super(backend);
    }

    private static void checkFormat(int groupSize, int bits) {
        if (!BITS.contains(bits)) throw new InvalidParameterException("bits", bits, "2, 3, 4, 5, 6, 8");
        if (!GROUP_SIZES.contains(groupSize)) throw new InvalidParameterException("group size", groupSize, "32, 64, 128");
    }

    QuantizedMatrix quantize(MlxTensor w, int groupSize, int bits) {
        checkFormat(groupSize, bits);
        if (w.dims.length < 2 || !w.dtype.isFloating()) {
            throw new IllegalArgumentException("quantize: expected a floating matrix [..., rows, cols], found " + w.shape() + " " + w.dtype);
        }
        int cols = w.dims[w.dims.length - 1];
        if (cols % groupSize != 0) {
            throw new InvalidParameterException("group size", groupSize, "a divisor of the " + cols + " columns of " + w.shape());
        }
        return op(t -> {
            MemorySegment wa = w.array(t);
            MemorySegment vector = mlx_vector_array_new(Mlx.structs());
            try {
                MlxErrors.check(mlx_quantize(vector, wa, Mlx.optionalInt(t.arena, groupSize), Mlx.optionalInt(t.arena, bits),
                        t.arena.allocateFrom("affine"), Mlx.NO_ARRAY, s()), "quantize");
                MemorySegment[] parts = new MemorySegment[3];
                for (int i = 0; i < 3; i++) {
                    int index = i;
                    parts[i] = t.call("quantize", r -> mlx_vector_array_get(r, vector, index));
                }
                MlxTensor packed = result(parts[0], DType.U32);
                MlxTensor scales = result(parts[1], w.dtype);
                MlxTensor biases = result(parts[2], w.dtype);
                return new QuantizedMatrix(packed, scales, biases, groupSize, bits);
            } finally {
                mlx_vector_array_free(vector);
            }
        });
    }

    private record Parts(MemorySegment packed, MemorySegment scales, MemorySegment biases) {
    }

    private Parts parts(Temps t, QuantizedMatrix w) {
        checkFormat(w.groupSize(), w.bits());
        MlxTensor packed = backend.check(w.packed(), "packed");
        MlxTensor scales = backend.check(w.scales(), "scales");
        MlxTensor biases = backend.check(w.biases(), "biases");
        return new Parts(packed.array(t), cast(t, scales.array(t), DType.F32), cast(t, biases.array(t), DType.F32));
    }

    MlxTensor dequantize(QuantizedMatrix w) {
        return op(t -> {
            Parts p = parts(t, w);
            MemorySegment out = t.call("dequantize", r -> mlx_dequantize(r, p.packed, p.scales, p.biases,
                    Mlx.optionalInt(t.arena, w.groupSize()), Mlx.optionalInt(t.arena, w.bits()), t.arena.allocateFrom("affine"),
                    Mlx.NO_ARRAY, Mlx.optionalDtype(t.arena, DType.F32), s()));
            return result(out, w.scales().dtype());
        });
    }

    MlxTensor quantizedMatmul(MlxTensor x, QuantizedMatrix w, boolean transpose) {
        int k = transpose ? w.cols() : w.rows();
        if (x.dims.length == 0 || x.dims[x.dims.length - 1] != k) {
            throw new IllegalArgumentException("quantizedMatmul: x " + x.shape() + " does not match the quantized "
                    + (transpose ? "[N, K] = " : "[K, N] = ") + "[" + w.rows() + ", " + w.cols() + "]");
        }
        DType type = promote(x.dtype, w.scales().dtype());
        if (x.dims.length >= 2 && (x.size() == 0 || w.packed().shape().size() == 0)) return emptyProduct(x, w, transpose, type);
        return op(t -> {
            Parts p = parts(t, w);
            MemorySegment xa = cast(t, x.array(t), DType.F32);
            if (x.size() / k >= BLAS_ROWS) {
                // many rows (prefill): MLX's CPU quantized kernels are scalar on x86, so dequantize
                // once into f32 and let BLAS multiply; values are q·scale + bias in f32 either way
                MemorySegment w32 = t.call("dequantize", r -> mlx_dequantize(r, p.packed, p.scales, p.biases,
                        Mlx.optionalInt(t.arena, w.groupSize()), Mlx.optionalInt(t.arena, w.bits()), t.arena.allocateFrom("affine"),
                        Mlx.NO_ARRAY, Mlx.optionalDtype(t.arena, DType.F32), s()));
                MemorySegment right = transpose ? t.call("swapaxes", r -> mlx_swapaxes(r, w32, -1, -2, s())) : w32;
                return result(t.call("matmul", r -> mlx_matmul(r, xa, right, s())), type);
            }
            MemorySegment out = t.call("quantized_matmul", r -> mlx_quantized_matmul(r, xa, p.packed, p.scales, p.biases, transpose,
                    Mlx.optionalInt(t.arena, w.groupSize()), Mlx.optionalInt(t.arena, w.bits()), t.arena.allocateFrom("affine"), s()));
            return result(out, type);
        });
    }

    /**
     * A product with an empty operand: MLX cannot reshape empty arrays, yet an empty cache (a row before
     * its first token) is a normal state. A sum over no terms is 0, so the result is zeros of the
     * broadcast shape {@code [..., M, N]}.
     */
    private MlxTensor emptyProduct(MlxTensor x, QuantizedMatrix w, boolean transpose, DType type) {
        int[] wd = w.packed().shape().dims();
        int[] batch = ViewOps.broadcastShape("quantizedMatmul", Arrays.copyOf(x.dims, x.dims.length - 2), Arrays.copyOf(wd, wd.length - 2));
        int[] out = Arrays.copyOf(batch, batch.length + 2);
        out[batch.length] = x.dims[x.dims.length - 2];
        out[batch.length + 1] = transpose ? w.rows() : w.cols();
        return backend.check(backend.ops().zeros(Shape.of(out), type), "zeros");
    }
}
