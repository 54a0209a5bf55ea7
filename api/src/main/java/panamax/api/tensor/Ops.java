package panamax.api.tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The core op surface every backend implements: enough for layouts, codecs and models. Fused
 * kernels beyond it (attention over quantized KV planes, codebook and rotation ops) are optional
 * families a backend offers through {@link Backend#kernel}; see {@link panamax.api.tensor.kernel}.
 *
 * <p>Ownership: every tensor argument is borrowed (it stays open and unchanged); every returned
 * tensor is new and owned by the caller, including views. Shapes are checked and mismatches throw
 * {@link IllegalArgumentException} naming both shapes. Negative axes count from the end.
 *
 * <p>Dtypes: floating math runs in f32 (accumulations in f32 or wider). Binary ops return the
 * promoted dtype: equal dtypes stay; a floating type beats an integer type; F32 beats BF16/F16;
 * BF16 with F16 gives F32. Ops on one tensor keep its dtype unless stated.
 */
public interface Ops {

    // ---- creation ----

    /** A tensor of zeros. */
    Tensor zeros(Shape shape, DType dtype);

    /** A tensor with every element equal to {@code value} (rounded to dtype). */
    Tensor full(Shape shape, double value, DType dtype);

    /** The 1-D tensor {@code [start, start+1, ..., stop-1]}. */
    Tensor arange(int start, int stop, DType dtype);

    // ---- shape and data movement ----

    /** Same elements in row-major order, new shape of equal size. May share storage with {@code x}. */
    Tensor reshape(Tensor x, Shape shape);

    /** Permutes the axes: result axis {@code i} is input axis {@code axes[i]}. A view where possible. */
    Tensor transpose(Tensor x, int... axes);

    /** Indices {@code [start, end)} of one axis; a view. {@code 0 <= start <= end <= dim}. */
    Tensor slice(Tensor x, int axis, int start, int end);

    /** Broadcasts {@code x} to {@code shape} by numpy rules; a view. */
    Tensor broadcastTo(Tensor x, Shape shape);

    /** A row-major copy with its own storage. */
    Tensor copy(Tensor x);

    /** Joins tensors of equal shape except along {@code axis}; dtypes must match. */
    Tensor concat(List<Tensor> xs, int axis);

    /**
     * Gathers along {@code axis} by integer {@code indices} (any shape): the result's shape is x's
     * with that axis replaced by the indices' shape. Indices out of range throw.
     */
    Tensor take(Tensor x, Tensor indices, int axis);

    /** {@code out[..i..] = x[..indices[..i..]..]} along {@code axis}; indices broadcast against x on other axes. */
    Tensor takeAlongAxis(Tensor x, Tensor indices, int axis);

    /** A copy of {@code x} with {@code values} written at {@code indices} along {@code axis}. */
    Tensor putAlongAxis(Tensor x, Tensor indices, Tensor values, int axis);

    /** A copy of {@code x} with {@code update} written at offset {@code starts} (one per axis). */
    Tensor sliceUpdate(Tensor x, Tensor update, int... starts);

    /**
     * Writes {@code update} (converted to target's dtype as {@link #astype} would) into
     * {@code target} in place at offset {@code starts} (one per axis): the only ops that mutate a
     * tensor, so that appending to a KV cache costs the appended tokens, not the whole cache.
     *
     * <p>Ownership: {@code target} is borrowed but written. The caller must own its storage
     * exclusively: every view that shares the storage (slices, transposes, reshapes of it, handles
     * given out earlier) observes the write, so a caller that handed out a view whose contents must
     * not change copies first. {@code target} may be a strided view (e.g. a slice); it must not be a
     * broadcast view, a read-only mapped tensor, nor overlap {@code update}'s storage. Lazy
     * backends make the write visible to everything evaluated after this call.
     *
     * @throws IllegalArgumentException when ranks differ or the block does not fit, naming both shapes
     */
    void writeSlice(Tensor target, Tensor update, int... starts);

    /**
     * In-place {@link #putAlongAxis}: writes {@code values} at {@code indices} along {@code axis}
     * of {@code target} (indices and values broadcast against target off that axis), with the
     * ownership rules of {@link #writeSlice}. Used where rows write to different columns.
     */
    void writeAlongAxis(Tensor target, Tensor indices, Tensor values, int axis);

    /** Converts to {@code dtype} (float to float rounds to nearest even; float to int truncates). */
    Tensor astype(Tensor x, DType dtype);

    // ---- elementwise ----

    Tensor unary(UnaryOp op, Tensor x);

    Tensor binary(BinaryOp op, Tensor a, Tensor b);

    /** {@code op(x, scalar)}; the result keeps x's dtype. */
    Tensor binary(BinaryOp op, Tensor x, double scalar);

    /** BOOL result. */
    Tensor compare(Comparison op, Tensor a, Tensor b);

    /** {@code cond ? a : b} elementwise; cond is BOOL; all three broadcast. */
    Tensor where(Tensor cond, Tensor a, Tensor b);

    // ---- reductions ----

    Tensor reduce(Reduction op, Tensor x, int axis, boolean keepDims);

    /** I32 index of the largest value along {@code axis}; the first one on ties. */
    Tensor argmax(Tensor x, int axis, boolean keepDims);

    /** The {@code k} largest values along the last axis, sorted descending, with their indices. */
    TopK topK(Tensor x, int k);

    // ---- linear algebra ----

    /** {@code [..., m, k] × [..., k, n] → [..., m, n]}; batch axes broadcast; f32 accumulation. */
    Tensor matmul(Tensor a, Tensor b);

    /**
     * Independent products {@code matmul(a[i], b[i])}, each result equal to that call's bit for bit. A backend
     * may run them in one pass over its threads, which a sequence of calls cannot: a layer's query, key and
     * value projections of one x, or the experts a token is routed to, are each too small to keep every core
     * streaming alone. The default runs them one after another.
     *
     * @throws IllegalArgumentException when the lists differ in length, or as {@link #matmul} for a pair
     * @since 0.5
     */
    default List<Tensor> matmuls(List<Tensor> a, List<Tensor> b) {
        if (a.size() != b.size()) throw new IllegalArgumentException("matmuls: " + a.size() + " left operands and " + b.size() + " right");
        return each(a.size(), i -> matmul(a.get(i), b.get(i)));
    }

    // ---- fused ops ----

    /** {@code x / sqrt(mean(x², last axis) + eps) · weight}; weight is [D]. */
    Tensor rmsNorm(Tensor x, Tensor weight, double eps);

    /** {@code (x − mean) / sqrt(var + eps) · weight + bias} over the last axis; weight and bias are [D]. */
    Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps);

    /**
     * Rotary embedding of {@code x [B, H, T, D]}: token {@code t} of row {@code b} sits at position
     * {@code offsets[b] + t}, rotated by {@code (offsets[b] + t)·scale·invFreq(i)}. Features at or
     * beyond {@code spec.dims()} pass unchanged.
     *
     * @param offsets I32 [B] (or [1], shared by every row)
     */
    Tensor rope(Tensor x, RopeSpec spec, Tensor offsets);

    /** Numerically stable softmax along {@code axis}, computed in f32. */
    Tensor softmax(Tensor x, int axis);

    /**
     * {@code softmax(q·kᵀ·scale + mask)·v} with grouped-query heads: q [B, Hq, Tq, D], k [B, Hkv, Tk, D],
     * v [B, Hkv, Tk, Dv], Hq a multiple of Hkv (query head h reads kv head h / (Hq/Hkv)). Rows whose
     * keys are all masked give zeros. Returns [B, Hq, Tq, Dv] in q's dtype.
     */
    Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, double scale, AttentionMask mask);

    // ---- MLX affine quantization ----

    /**
     * Quantizes {@code w [..., rows, cols]} along its last axis in MLX's affine format (see
     * {@link QuantizedMatrix}); scales and biases take w's dtype. Per group, in f32:
     * {@code s = max((max−min)/(2^b−1), 1e-7)}; the extreme of larger magnitude is the edge (s
     * negated when it is the max); {@code q0 = rint(edge/s)}; if {@code q0 ≠ 0} then
     * {@code s = edge/q0, bias = edge} else {@code bias = 0}; {@code q = clamp(rint((w−bias)/s), 0, 2^b−1)}.
     *
     * @throws panamax.api.error.InvalidParameterException for unsupported bits or group sizes, or cols not divisible by groupSize
     */
    QuantizedMatrix quantize(Tensor w, int groupSize, int bits);

    /** {@code q·scale + bias} per element, in the scales' dtype. */
    Tensor dequantize(QuantizedMatrix w);

    /**
     * {@code x [..., K]} times the quantized matrix: with {@code transpose}, w is [N, K] and the
     * result is {@code x·wᵀ [..., N]}; without, w is [K, N] and the result is {@code x·w}. The
     * weights are never dequantized as a whole. Result dtype: promote(x, scales).
     */
    Tensor quantizedMatmul(Tensor x, QuantizedMatrix w, boolean transpose);

    /**
     * Independent products {@code quantizedMatmul(x[i], w[i], transpose)}, each result equal to that call's bit
     * for bit, which a backend may run in one pass over its threads (see {@link #matmuls}). The default runs them
     * one after another.
     *
     * @throws IllegalArgumentException when the lists differ in length, or as {@link #quantizedMatmul} for a pair
     * @since 0.5
     */
    default List<Tensor> quantizedMatmuls(List<Tensor> x, List<QuantizedMatrix> w, boolean transpose) {
        if (x.size() != w.size()) throw new IllegalArgumentException("quantizedMatmuls: " + x.size() + " inputs and " + w.size() + " matrices");
        return each(x.size(), i -> quantizedMatmul(x.get(i), w.get(i), transpose));
    }

    /**
     * The results of {@code op} for {@code 0..n-1} in a new list; when one throws, those made before it are closed.
     */
    private static List<Tensor> each(int n, IntFunction<Tensor> op) {
        List<Tensor> out = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) out.add(op.apply(i));
            return out;
        } catch (RuntimeException | Error e) {
            for (Tensor t : out) t.close();
            throw e;
        }
    }

    // ---- conveniences over the primitives above ----

    default Tensor add(Tensor a, Tensor b) {
        return binary(BinaryOp.ADD, a, b);
    }

    default Tensor sub(Tensor a, Tensor b) {
        return binary(BinaryOp.SUB, a, b);
    }

    default Tensor mul(Tensor a, Tensor b) {
        return binary(BinaryOp.MUL, a, b);
    }

    default Tensor div(Tensor a, Tensor b) {
        return binary(BinaryOp.DIV, a, b);
    }

    default Tensor mul(Tensor x, double scalar) {
        return binary(BinaryOp.MUL, x, scalar);
    }

    default Tensor add(Tensor x, double scalar) {
        return binary(BinaryOp.ADD, x, scalar);
    }

    default Tensor silu(Tensor x) {
        return unary(UnaryOp.SILU, x);
    }

    default Tensor gelu(Tensor x) {
        return unary(UnaryOp.GELU, x);
    }

    default Tensor sum(Tensor x, int axis, boolean keepDims) {
        return reduce(Reduction.SUM, x, axis, keepDims);
    }

    default Tensor max(Tensor x, int axis, boolean keepDims) {
        return reduce(Reduction.MAX, x, axis, keepDims);
    }
}
