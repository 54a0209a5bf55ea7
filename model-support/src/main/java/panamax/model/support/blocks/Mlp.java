package panamax.model.support.blocks;

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
        Linear activated = gate == null ? up : gate;
        try (Tensor g = activated.apply(ops, x);
             Tensor shaped = shaping == null ? null : shaping.apply(ops, g);
             Tensor a = ops.unary(activation, shaped == null ? g : shaped)) {
            if (gate == null) return down.apply(ops, a);
            try (Tensor u = up.apply(ops, x); Tensor gu = ops.mul(a, u)) {
                return down.apply(ops, gu);
            }
        }
    }

    @Override
    public void close() {
        if (gate != null) gate.close();
        up.close();
        down.close();
    }
}
