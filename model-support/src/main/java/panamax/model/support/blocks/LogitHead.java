package panamax.model.support.blocks;

import java.util.function.BiFunction;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/** The output projection of the selected positions, with optional final logit soft-capping. Stateless. */
public final class LogitHead {
    private LogitHead() {
    }

    /**
     * Logits {@code [B, positions, vocab]} (f32) of {@code hidden [B, T, H]} at {@code selection}.
     *
     * @param head    {@code x [N, H] → [N, vocab]}
     * @param softcap {@code cap·tanh(logits/cap)} when positive
     */
    public static Tensor project(Ops ops, Tensor hidden, LogitSelection selection, BiFunction<Ops, Tensor, Tensor> head, int vocab, double softcap) {
        int b = hidden.dim(0), t = hidden.dim(1), h = hidden.dim(2);
        int start, end;
        switch (selection) {
            case LogitSelection.All all -> { start = 0; end = t; }
            case LogitSelection.Last last -> { start = t - 1; end = t; }
            case LogitSelection.Range r -> {
                if (r.end() > t) throw new IllegalArgumentException("logit range [" + r.start() + ", " + r.end() + ") beyond " + t + " positions");
                start = r.start();
                end = r.end();
            }
        }
        Tensor shaped;
        try (Tensor picked = ops.slice(hidden, 1, start, end);
             Tensor flat = ops.reshape(picked, Shape.of(b * (end - start), h));
             Tensor logits = head.apply(ops, flat)) {
            // a reshape is a new owned handle on the logits' storage: no copy of [B, T, vocab] per step
            shaped = ops.reshape(logits, Shape.of(b, end - start, vocab));
        }
        if (softcap <= 0) return shaped;
        try (shaped; Tensor scaled = ops.binary(BinaryOp.DIV, shaped, softcap); Tensor th = ops.unary(UnaryOp.TANH, scaled)) {
            return ops.mul(th, softcap);
        }
    }
}
