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
        return run(kv, ids, rows, columns, logits ? LogitSelection.LAST : null);
    }

    /**
     * As {@link #run(KvState, int[], int, int, boolean)}, returning the logits of the selected
     * columns {@code [rows * selected * vocab]} (row-major), or null when {@code selection} is null.
     */
    public float[] run(KvState kv, int[] ids, int rows, int columns, LogitSelection selection) {
        try (Tensor input = backend.fromInts(ids, Shape.of(rows, columns), DType.I32);
             Tensor hidden = graph.forwardHidden(input, kv)) {
            if (selection == null) return null;
            try (Tensor selected = graph.projectLogits(hidden, selection)) {
                return backend.toFloats(selected);
            }
        }
    }
}
