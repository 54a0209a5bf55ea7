package panamax.kv.codecs.internal;

import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * The attention probabilities of already-scaled scores under an {@link AttentionMask}, with the
 * semantics of {@link Ops#scaledDotProductAttention}: softmax in f32 along the keys, and rows
 * whose keys are all masked give zeros. Used by codecs that compute attention on their own planes.
 */
public final class MaskedSoftmax {
    private MaskedSoftmax() {
    }

    /**
     * Softmax of borrowed {@code scores [B, Hq, Tq, Tk]} (any floating dtype) under {@code mask};
     * returns a new f32 tensor of the same shape, owned by the caller.
     */
    public static Tensor probabilities(Ops ops, Tensor scores, AttentionMask mask) {
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
                    masked = s.add(ops.add(f32, s.add(causalBias(ops, tq, tk, causal.window()))));
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
    static Tensor causalBias(Ops ops, int tq, int tk, int window) {
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
}
