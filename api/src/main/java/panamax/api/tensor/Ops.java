package panamax.api.tensor;

import java.util.List;

/**
 * The op surface every backend implements: enough for layouts, codecs and models.
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

    /**
     * The attention probabilities of already-scaled {@code scores [B, Hq, Tq, Tk]} under {@code mask},
     * with the semantics of {@link #scaledDotProductAttention}: softmax in f32 along the keys, and rows
     * whose keys are all masked give zeros. Returns a new F32 tensor of the scores' shape. For codecs
     * that score their own planes; the default composes {@link #softmax} with the mask.
     *
     * @since 0.2
     */
    default Tensor attentionProbabilities(Tensor scores, AttentionMask mask) {
        return AttentionFallbacks.probabilities(this, scores, mask);
    }

    /**
     * {@link #scaledDotProductAttention} over affine-quantized keys and values (a quantized KV cache):
     * q {@code [B, Hq, Tq, D]}; keys packed {@code [B, Hkv, Tk, D·bits/32]} with scales and biases
     * {@code [B, Hkv, Tk, D/groupSize]}; values the same with Dv columns (their own bits and group
     * size). Scores, softmax and sums in f32; returns {@code [B, Hq, Tq, Dv]} in q's dtype, equal to
     * attention over the dequantized keys and values up to f32 rounding. A fast backend reads the codes
     * where they lie; the default composes {@link #quantizedMatmul}, {@link #attentionProbabilities} and
     * {@link #quantizedMatmul}. Arguments are checked by {@link QuantizedAttentionShape#of}.
     *
     * @since 0.2
     */
    default Tensor quantizedAttention(Tensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask) {
        return AttentionFallbacks.quantized(this, q, keys, values, scale, mask);
    }

    /**
     * {@link #scaledDotProductAttention} over codebook keys and values (a vector-quantized cache such
     * as TurboQuant's, in its rotated domain): q {@code [B, Hq, Tq, D]}; keys packed
     * {@code [B, Hkv, Tk, D·bits/32]} with row scales {@code [B, Hkv, Tk, 1]}; values the same with Dv
     * columns. Entry (t, j) of keys is {@code codebook[code]·rowScale[t]}. Scores, softmax and sums in
     * f32; returns {@code [B, Hq, Tq, Dv]} in q's dtype. A fast backend looks codes up where they lie;
     * the default composes {@link #codebookMatmul}, {@link #attentionProbabilities} and
     * {@link #codebookMatmul}. Arguments are checked by {@link QuantizedAttentionShape#of(Tensor, CodebookMatrix, CodebookMatrix)}.
     *
     * @since 0.2
     */
    default Tensor codebookAttention(Tensor q, CodebookMatrix keys, CodebookMatrix values, double scale, AttentionMask mask) {
        return AttentionFallbacks.codebook(this, q, keys, values, scale, mask);
    }

    /**
     * {@link #codebookAttention} whose scores add a second, sketched key term:
     * {@code softmax(scale·(q·Kᵀ + qs·Sᵀ) + mask)·V}, with {@code qs [B, Hq, Tq, Ds]} the queries in the
     * sketch's space and {@code sketch} codebook rows {@code [B, Hkv, Tk, Ds·bits/32]} of the same keys
     * (TurboQuant's QJL sign bits: a ±1 codebook whose row scales carry each key's estimator factor).
     * Both query tensors are checked as {@link #codebookAttention}'s q against their keys and the values,
     * and must agree on B, Hq and Tq. The default composes two {@link #codebookMatmul}s, their sum,
     * {@link #attentionProbabilities} and {@link #codebookMatmul}.
     *
     * @since 0.2
     */
    default Tensor codebookAttention(Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch, CodebookMatrix values, double scale,
                                     AttentionMask mask) {
        return AttentionFallbacks.codebookSketched(this, q, keys, qs, sketch, values, scale, mask);
    }

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

    // ---- codebook codes and randomized Hadamard rotations (vector quantizers such as TurboQuant) ----

    /**
     * The dense values {@code codebook[code]·rowScale} of a codebook matrix: a new F32
     * {@code [..., rows, cols]}. The default unpacks with {@link #dequantize} and gathers with
     * {@link #take}; fast backends override it.
     *
     * @since 0.2
     */
    default Tensor codebookDequantize(CodebookMatrix w) {
        return CodebookFallbacks.dequantize(this, w);
    }

    /**
     * {@code x [..., K]} times a codebook matrix, as {@link #quantizedMatmul}: with {@code transpose},
     * w is [N, K] and the result is {@code x·wᵀ [..., N]}; without, w is [K, N] and the result is
     * {@code x·w}. Leading axes broadcast as in {@link #matmul}. Result F32, accumulated in f32. A fast
     * backend looks codes up while it multiplies and never materializes w; the default does
     * ({@link #codebookDequantize} then {@link #matmul}).
     *
     * @since 0.2
     */
    default Tensor codebookMatmul(Tensor x, CodebookMatrix w, boolean transpose) {
        return CodebookFallbacks.matmul(this, x, w, transpose);
    }

    /**
     * Quantizes each row of floating {@code x [..., cols]} as its norm times codebook values: the
     * code of element j is the number of {@code boundaries} (F32 {@code [2^bits − 1]}, ascending)
     * strictly below {@code x_j / max(‖x‖, 2^-126)}, with ‖x‖ the row's f32 Euclidean norm. Returns
     * a matrix whose {@code packed} (U32 {@code [..., cols·bits/32]}, MLX's LSB-first packing) and
     * {@code rowScales} (the norms, F32 {@code [..., 1]}) are new and owned by the caller, and whose
     * {@code codebook} is the borrowed argument. {@code cols} must be a multiple of 32 (64 for 1 bit).
     * Codes of values within f32 rounding of a boundary may differ between backends.
     *
     * @since 0.2
     */
    default CodebookMatrix codebookQuantize(Tensor x, Tensor codebook, Tensor boundaries, int bits) {
        return CodebookFallbacks.quantize(this, x, codebook, boundaries, bits);
    }

    /**
     * The randomized Hadamard rotation along the last axis of floating {@code x [..., n]}, n a power
     * of two: forward {@code y = H·(signs ⊙ x)}, inverse {@code x = signs ⊙ (H·y)}, with H the
     * normalized (orthonormal, symmetric) Walsh–Hadamard matrix and {@code signs} (F32, ±1) broadcast
     * against x. Returns a new F32 tensor of x's shape. The default multiplies by a dense H (O(n²));
     * fast backends run the O(n log n) butterfly.
     *
     * @since 0.2
     */
    default Tensor hadamardRotate(Tensor x, Tensor signs, boolean inverse) {
        return CodebookFallbacks.hadamard(this, x, signs, inverse);
    }

    /**
     * {@link #codebookQuantize} of {@link #hadamardRotate hadamardRotate(x, signs, false)}: the codes
     * and norms of each row's rotated direction. A fast backend rotates, quantizes and packs each row
     * in one pass, with no rotated copy of x; the default composes the two ops.
     *
     * @since 0.2
     */
    default CodebookMatrix codebookQuantizeRotated(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits) {
        try (Tensor rotated = hadamardRotate(x, signs, false)) {
            return codebookQuantize(rotated, codebook, boundaries, bits);
        }
    }

    /**
     * {@link #hadamardRotate hadamardRotate(codebookDequantize(w), signs, true)} cast to {@code dtype}:
     * rows decoded back to the unrotated domain, a new {@code [..., rows, cols]} tensor. A fast backend
     * looks up, un-rotates and stores each row in one pass; the default composes the ops.
     *
     * @since 0.2
     */
    default Tensor codebookDequantizeRotated(CodebookMatrix w, Tensor signs, DType dtype) {
        try (Tensor values = codebookDequantize(w); Tensor rotated = hadamardRotate(values, signs, true)) {
            return astype(rotated, dtype);
        }
    }

    /**
     * TurboQuant-prod's key encoding in one op. For each row of floating {@code x [..., n]} (n a power of
     * two, at least 64): the rotated direction {@code u = R x/max(‖x‖, 2^-126)} with
     * {@code R x = hadamardRotate(x, signs, false)}; its codebook codes as {@link #codebookQuantizeRotated}
     * gives them (none when {@code bits} is 0, and then codebook and boundaries may be null); the residual
     * {@code r = u − codebook[codes]} (u itself without codes); and the signs of
     * {@code S r = H·Dₖ·…·H·D₁·r}, the chain of {@code hadamardRotate(·, sketchSigns[i], false)} in list
     * order, as 1-bit codes (bit set where positive). The norms {@code ‖x‖} and residual norms {@code ‖x‖·‖r‖}
     * (the residual in x's own scale) are f32. The default
     * composes the ops; a fast backend runs each row in one pass. Codes and sketch bits of values within
     * f32 rounding of a boundary may differ between backends.
     *
     * @param sketchSigns one or more F32 ±1 sign tensors, each broadcast against x as {@code signs} is
     * @since 0.3
     */
    default SketchedCodes codebookQuantizeRotatedSketched(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits,
                                                          List<Tensor> sketchSigns) {
        return CodebookFallbacks.quantizeSketched(this, x, signs, codebook, boundaries, bits, sketchSigns);
    }

    /**
     * The decoding of {@link #codebookQuantizeRotatedSketched}'s planes: per row
     * {@code hadamardRotate(codebookDequantize(w) + Sᵀ·codebookDequantize(sketch), signs, true)} cast to
     * {@code dtype}, with {@code Sᵀ = D₁·H·…·Dₖ·H} the transpose of the sketch's chain (the sketch's row
     * scales carry the estimator's factor per row). {@code w} is null when the rows have no codebook codes.
     * The default composes the ops; a fast backend decodes each row in one pass.
     *
     * @param sketch 1-bit codes {@code [..., rows, n/32]} over a two-entry book, with row scales
     * @since 0.3
     */
    default Tensor codebookDequantizeRotatedSketched(CodebookMatrix w, CodebookMatrix sketch, List<Tensor> sketchSigns, Tensor signs,
                                                     DType dtype) {
        return CodebookFallbacks.dequantizeSketched(this, w, sketch, sketchSigns, signs, dtype);
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
