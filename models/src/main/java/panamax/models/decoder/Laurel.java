package panamax.models.decoder;

import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Linear;
import panamax.model.support.weights.WeightSource;

/**
 * LAuReL, Gemma 3n's learned augmented residual: {@code x + norm(right(left(x)))} with a low-rank
 * {@code left [rank, hidden]}, {@code right [hidden, rank]}. Owns its weights. Thread-safe.
 */
record Laurel(Linear left, Linear right, Tensor norm, double eps) implements AutoCloseable {

    /** Loads {@code prefix}{@code linear_left}, {@code linear_right} and {@code post_laurel_norm}. */
    static Laurel load(WeightSource w, String prefix, int hidden, int rank, double eps) {
        Linear left = w.linear(prefix + "linear_left", rank, hidden, false);
        Linear right = null;
        try {
            right = w.linear(prefix + "linear_right", hidden, rank, false);
            return new Laurel(left, right, w.norm(prefix + "post_laurel_norm.weight", hidden, false), eps);
        } catch (RuntimeException e) {
            left.close();
            if (right != null) right.close();
            throw e;
        }
    }

    /** {@code x [..., hidden]} (borrowed) plus its normalized low-rank residual. */
    Tensor apply(Ops ops, Tensor x) {
        try (Tensor l = left.apply(ops, x);
             Tensor r = right.apply(ops, l);
             Tensor n = ops.rmsNorm(r, norm, eps)) {
            return ops.add(x, n);
        }
    }

    @Override
    public void close() {
        left.close();
        right.close();
        norm.close();
    }
}
