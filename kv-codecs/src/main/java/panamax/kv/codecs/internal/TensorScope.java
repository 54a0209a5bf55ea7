package panamax.kv.codecs.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import panamax.api.tensor.Tensor;

/**
 * Owns the intermediate tensors of one codec computation and closes them, newest first, when the
 * scope closes. {@link #keep} hands a tensor out of the scope to the caller, who then owns it.
 * Confined to one thread.
 *
 * {@snippet :
 * try (TensorScope s = new TensorScope()) {
 *     Tensor squared = s.add(ops.unary(UnaryOp.SQUARE, x));
 *     return s.keep(ops.sum(squared, -1, true)); // the caller owns the sum
 * }
 * }
 */
public final class TensorScope implements AutoCloseable {
    private final Deque<Tensor> owned = new ArrayDeque<>();

    /** Takes ownership of {@code t} and returns it. */
    public Tensor add(Tensor t) {
        owned.push(t);
        return t;
    }

    /** Takes ownership of {@code t} and hands it out again (for results built inside a scope). */
    public Tensor keep(Tensor t) {
        owned.removeFirstOccurrence(t);
        return t;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        while (!owned.isEmpty()) {
            try {
                owned.pop().close();
            } catch (RuntimeException e) {
                if (failure == null) failure = e;
                else failure.addSuppressed(e);
            }
        }
        if (failure != null) throw failure;
    }
}
