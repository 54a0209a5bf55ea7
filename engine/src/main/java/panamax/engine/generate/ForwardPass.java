package panamax.engine.generate;

import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One forward pass of a graph over a block of ids, returning the last column's logits on the heap.
 * Borrows the graph and backend; holds no state.
 */
public record ForwardPass(AutoregressiveGraph graph, Backend backend) {
    /**
     * Runs {@code ids [rows, columns]} through the model on {@code kv}, appending their keys and
     * values; returns the last column's logits {@code [rows * vocab]} when {@code logits}, else null.
     */
    public float[] run(KvState kv, int[] ids, int rows, int columns, boolean logits) {
        try (Tensor input = backend.fromInts(ids, Shape.of(rows, columns), DType.I32);
             Tensor hidden = graph.forwardHidden(input, kv)) {
            if (!logits) return null;
            try (Tensor last = graph.projectLogits(hidden, LogitSelection.LAST)) {
                return backend.toFloats(last);
            }
        }
    }
}
