package panamax.model.support.blocks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/**
 * A feed-forward block: gated, {@code down(act(gate(x)) · up(x))} (Llama's SwiGLU with
 * {@link UnaryOp#SILU}, Gemma's GeGLU with {@link UnaryOp#GELU_TANH}), or plain,
 * {@code down(act(up(x)))} (GPT-2). Owns its projections. Thread-safe for concurrent {@link #apply}.
 *
 * @param gate the gate projection {@code [width, hidden]}, or null for a plain MLP
 * @param up   the up projection {@code [width, hidden]}
 * @param down the down projection {@code [hidden, width]}
 */
public record Mlp(Linear gate, Linear up, Linear down) implements AutoCloseable {
    /** A gated MLP; takes ownership of the projections. */
    public static Mlp gated(Linear gate, Linear up, Linear down) {
        return new Mlp(gate, up, down);
    }

    /** A plain MLP; takes ownership of the projections. */
    public static Mlp plain(Linear up, Linear down) {
        return new Mlp(null, up, down);
    }

    /** {@code x [..., hidden]} (borrowed) to a new f32 {@code [..., hidden]}. */
    public Tensor apply(Ops ops, UnaryOp activation, Tensor x) {
        return apply(ops, activation, x, null);
    }

    /**
     * As {@link #apply(Ops, UnaryOp, Tensor)}, with {@code shaping} applied to the gate's (or, plain,
     * the up projection's) output before the activation (e.g. Gemma 3n's activation sparsity); null for none.
     */
    public Tensor apply(Ops ops, UnaryOp activation, Tensor x, BiFunction<Ops, Tensor, Tensor> shaping) {
        if (gate == null) {
            try (Tensor u = up.apply(ops, x);
                 Tensor shaped = shaping == null ? null : shaping.apply(ops, u);
                 Tensor a = ops.unary(activation, shaped == null ? u : shaped)) {
                return down.apply(ops, a);
            }
        }
        List<Tensor> gateAndUp = Linear.applyAll(ops, List.of(gate, up), List.of(x, x)); // one pass over the threads
        try (Tensor g = gateAndUp.get(0);
             Tensor u = gateAndUp.get(1);
             Tensor shaped = shaping == null ? null : shaping.apply(ops, g);
             Tensor a = ops.unary(activation, shaped == null ? g : shaped);
             Tensor gu = ops.mul(a, u)) {
            return down.apply(ops, gu);
        }
    }

    /**
     * {@code xs[i]} (borrowed) through {@code mlps[i]}: a new f32 tensor each, equal bit for bit to
     * {@code mlps[i].apply(ops, activation, xs[i])}. The first projections of all of them go to the backend together,
     * then all the down projections ({@link Linear#applyAll}): a mixture's routed experts, each too small to keep
     * every core streaming alone.
     */
    public static List<Tensor> applyAll(Ops ops, UnaryOp activation, List<Mlp> mlps, List<Tensor> xs) {
        int n = mlps.size();
        if (xs.size() != n) throw new IllegalArgumentException("applyAll: " + n + " MLPs and " + xs.size() + " inputs");
        List<Linear> first = new ArrayList<>(2 * n);
        List<Tensor> firstIn = new ArrayList<>(2 * n);
        for (int i = 0; i < n; i++) {
            Mlp m = mlps.get(i);
            if (m.gate != null) {
                first.add(m.gate);
                firstIn.add(xs.get(i));
            }
            first.add(m.up);
            firstIn.add(xs.get(i));
        }
        List<Tensor> projected = Linear.applyAll(ops, first, firstIn);
        List<Tensor> inner = new ArrayList<>(n);
        try {
            int p = 0;
            for (Mlp m : mlps) {
                Tensor a = ops.unary(activation, projected.get(p++));
                if (m.gate == null) {
                    inner.add(a);
                    continue;
                }
                try (a) {
                    inner.add(ops.mul(a, projected.get(p++)));
                }
            }
            List<Linear> downs = new ArrayList<>(n);
            for (Mlp m : mlps) downs.add(m.down);
            return Linear.applyAll(ops, downs, inner);
        } finally {
            for (Tensor t : projected) t.close();
            for (Tensor t : inner) t.close();
        }
    }

    @Override
    public void close() {
        if (gate != null) gate.close();
        up.close();
        down.close();
    }
}
