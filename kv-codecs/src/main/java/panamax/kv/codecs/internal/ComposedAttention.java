package panamax.kv.codecs.internal;

import java.util.Optional;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.QuantizedAttentionShape;

/**
 * Attention over affine and codebook KV planes composed from the core {@link Ops} and
 * {@link CodebookKernels} (the backend's, or {@link ComposedCodebookKernels}), for backends that
 * offer no fused attention or decline a format: the same values, materializing the scores and the
 * mask, which a fused kernel never does. Always serves (never returns empty). Borrows its ops;
 * thread-safe.
 */
public final class ComposedAttention implements AffineKvKernels, CodebookAttentionKernels {
    private final Ops ops;
    private final CodebookKernels codebook;

    public ComposedAttention(Ops ops, CodebookKernels codebook) {
        this.ops = ops;
        this.codebook = codebook;
    }

    /**
     * The attention probabilities of already-scaled {@code scores [B, Hq, Tq, Tk]} under {@code mask},
     * with the semantics of {@link Ops#scaledDotProductAttention}: softmax in f32 along the keys, and
     * rows whose keys are all masked give zeros. Returns a new F32 tensor of the scores' shape.
     */
    public Tensor probabilities(Tensor scores, AttentionMask mask) {
        if (scores.rank() != 4) throw new IllegalArgumentException("attention scores: expected [B, Hq, Tq, Tk], found " + scores.shape());
        int tq = scores.dim(-2);
        int tk = scores.dim(-1);
        try (TensorScope s = new TensorScope()) {
            Tensor f32 = s.add(ops.astype(scores, DType.F32));
            Tensor masked;
            boolean mayHaveEmptyRows;
            switch (mask) {
                case AttentionMask.None none -> {
                    masked = f32;
                    mayHaveEmptyRows = false;
                }
                case AttentionMask.Causal causal -> {
                    masked = s.add(ops.add(f32, s.add(causalBias(tq, tk, causal.window()))));
                    // query i sees key Tk − Tq + i (and a window behind it) unless that index is negative
                    mayHaveEmptyRows = tk < tq;
                }
                case AttentionMask.Explicit explicit -> {
                    Tensor m = explicit.mask();
                    if (m.dtype() == DType.BOOL) {
                        Tensor blocked = s.add(ops.full(Shape.of(1), Double.NEGATIVE_INFINITY, DType.F32));
                        masked = s.add(ops.where(m, f32, blocked));
                    } else {
                        masked = s.add(ops.add(f32, m));
                    }
                    mayHaveEmptyRows = true;
                }
            }
            if (tk == 0) return s.keep(f32); // no keys: nothing to weigh (a max over them would be empty)
            Tensor p = s.add(ops.softmax(masked, -1));
            if (!mayHaveEmptyRows) return s.keep(p);
            Tensor rowMax = s.add(ops.max(masked, -1, true));
            Tensor blocked = s.add(ops.full(Shape.of(1), Double.NEGATIVE_INFINITY, DType.F32));
            Tensor anyKey = s.add(ops.compare(Comparison.GREATER, rowMax, blocked));
            Tensor zero = s.add(ops.zeros(Shape.of(1), DType.F32));
            return s.keep(ops.where(anyKey, p, zero));
        }
    }

    /**
     * The additive causal mask {@code [Tq, Tk]}: 0 where query i may see key j
     * ({@code j <= Tk − Tq + i}, and {@code j > Tk − Tq + i − window} when window &gt; 0), −∞ elsewhere.
     */
    private Tensor causalBias(int tq, int tk, int window) {
        try (TensorScope s = new TensorScope()) {
            Tensor qi = s.add(ops.reshape(s.add(ops.arange(0, tq, DType.F32)), Shape.of(tq, 1)));
            Tensor kj = s.add(ops.reshape(s.add(ops.arange(0, tk, DType.F32)), Shape.of(1, tk)));
            // distance = (Tk − Tq + i) − j: how far key j lies behind query i's own position
            Tensor distance = s.add(ops.sub(s.add(ops.add(qi, tk - tq)), kj));
            Tensor zero = s.add(ops.zeros(Shape.of(1), DType.F32));
            Tensor blocked = s.add(ops.full(Shape.of(1), Double.NEGATIVE_INFINITY, DType.F32));
            Tensor notFuture = s.add(ops.compare(Comparison.GREATER_EQUAL, distance, zero));
            Tensor bias = s.add(ops.where(notFuture, zero, blocked));
            if (window > 0) {
                Tensor limit = s.add(ops.full(Shape.of(1), window, DType.F32));
                Tensor inWindow = s.add(ops.compare(Comparison.LESS, distance, limit));
                bias = s.add(ops.add(bias, s.add(ops.where(inWindow, zero, blocked))));
            }
            return s.keep(bias);
        }
    }

    /**
     * {@code quantizedMatmul(q·scale, K, transpose)}, masked softmax, {@code quantizedMatmul(p, V)}:
     * grouped-query heads fold into rows of their kv head's product.
     */
    @Override
    public Optional<Tensor> quantizedAttention(Tensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask) {
        return Optional.of(quantized(q, keys, values, scale, mask));
    }

    private Tensor quantized(Tensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask) {
        QuantizedAttentionShape shape = QuantizedAttentionShape.of(q, keys, values);
        int groupRows = shape.hq() / shape.hkv() * shape.tq(); // query heads of one kv head, times query tokens
        try (TensorScope s = new TensorScope()) {
            Tensor scaled = s.add(ops.mul(s.add(ops.astype(q, DType.F32)), scale));
            Tensor grouped = s.add(ops.reshape(scaled, Shape.of(shape.b(), shape.hkv(), groupRows, shape.d())));
            Tensor scores = s.add(ops.quantizedMatmul(grouped, keys, true));          // [B, Hkv, rep·Tq, Tk]
            Tensor perHead = s.add(ops.reshape(scores, Shape.of(shape.b(), shape.hq(), shape.tq(), shape.tk())));
            Tensor p = s.add(probabilities(perHead, mask));             // f32
            Tensor pGrouped = s.add(ops.reshape(p, Shape.of(shape.b(), shape.hkv(), groupRows, shape.tk())));
            Tensor out = s.add(ops.quantizedMatmul(pGrouped, values, false));        // [B, Hkv, rep·Tq, Dv]
            Tensor outPerHead = s.add(ops.reshape(out, Shape.of(shape.b(), shape.hq(), shape.tq(), shape.dv())));
            return s.keep(ops.astype(outPerHead, q.dtype()));
        }
    }

    /**
     * {@code codebookMatmul(q·scale, K, transpose)}, masked softmax, {@code codebookMatmul(p, V)},
     * grouped-query heads folded into rows as for {@link #quantizedAttention}.
     */
    @Override
    public Optional<Tensor> codebookAttention(Tensor q, CodebookMatrix keys, CodebookMatrix values, double scale, AttentionMask mask) {
        return Optional.of(codebook(QuantizedAttentionShape.of(q, keys, values), q, keys, null, null, values, scale, mask));
    }

    /**
     * As the unsketched form, with the scores {@code codebookMatmul(q·scale, K) + codebookMatmul(qs·scale, S)}.
     */
    @Override
    public Optional<Tensor> codebookAttention(Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch, CodebookMatrix values,
                                              double scale, AttentionMask mask) {
        return Optional.of(codebook(QuantizedAttentionShape.of(q, keys, qs, sketch, values), q, keys, qs, sketch, values, scale, mask));
    }

    /** The composition of both forms; {@code qs} and {@code sketch} null for none. */
    private Tensor codebook(QuantizedAttentionShape shape, Tensor q, CodebookMatrix keys, Tensor qs, CodebookMatrix sketch,
                                   CodebookMatrix values, double scale, AttentionMask mask) {
        int groupRows = shape.hq() / shape.hkv() * shape.tq();
        try (TensorScope s = new TensorScope()) {
            Tensor scores = s.add(codebook.codebookMatmul(grouped(s, q, shape, groupRows, scale), keys, true));
            if (sketch != null) {
                scores = s.add(ops.add(scores, s.add(codebook.codebookMatmul(grouped(s, qs, shape, groupRows, scale), sketch, true))));
            }
            Tensor perHead = s.add(ops.reshape(scores, Shape.of(shape.b(), shape.hq(), shape.tq(), shape.tk())));
            Tensor p = s.add(probabilities(perHead, mask));
            Tensor pGrouped = s.add(ops.reshape(p, Shape.of(shape.b(), shape.hkv(), groupRows, shape.tk())));
            Tensor out = s.add(codebook.codebookMatmul(pGrouped, values, false));
            Tensor outPerHead = s.add(ops.reshape(out, Shape.of(shape.b(), shape.hq(), shape.tq(), shape.dv())));
            return s.keep(ops.astype(outPerHead, q.dtype()));
        }
    }

    /** {@code x·scale} in f32, its query heads folded into rows per kv head ({@code [B, Hkv, groupRows, x's last axis]}). */
    private Tensor grouped(TensorScope s, Tensor x, QuantizedAttentionShape shape, int groupRows, double scale) {
        Tensor scaled = s.add(ops.mul(s.add(ops.astype(x, DType.F32)), scale));
        return s.add(ops.reshape(scaled, Shape.of(shape.b(), shape.hkv(), groupRows, x.dim(3))));
    }
}
