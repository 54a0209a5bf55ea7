package panamax.engine.generate;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import panamax.api.kv.KvLayout;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.KvState;
import panamax.api.model.LogitSelection;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A fake decoder whose next-token logits depend only on the last token and its RoPE position
 * (as the KV layouts report it), peaking at {@link #next}. It appends zero keys and values to every
 * layer so the layouts track positions, padding and rows exactly as with a real model; a batched,
 * padded or chunked run therefore gives the same tokens as a plain one only if positions are right.
 */
final class PositionGraph implements AutoregressiveGraph {
    static final int HEAD_DIM = 4;
    private final Backend backend;
    private final int vocab;
    int forwardCalls;

    PositionGraph(Backend backend, int vocab) {
        this.backend = backend;
        this.vocab = vocab;
    }

    /** The most likely token after {@code token} at {@code position}. */
    int next(int token, int position) {
        return Math.floorMod(token * 7 + position * 3 + 1, vocab);
    }

    @Override
    public Tensor forwardHidden(Tensor ids, KvState state) {
        forwardCalls++;
        int rows = ids.dim(0), columns = ids.dim(1);
        int[] tokens = backend.toInts(ids);
        int[] start = state.layer(0).ropeOffsets();
        Set<KvLayout> layouts = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < state.layers(); i++) layouts.add(state.layer(i));
        try (Tensor kv = backend.ops().zeros(Shape.of(rows, 1, columns, HEAD_DIM), DType.F32)) {
            for (KvLayout layout : layouts) layout.append(kv, kv);
        }
        float[] hidden = new float[rows * columns * 2]; // (row, column, [token, position])
        for (int r = 0; r < rows; r++) {
            for (int t = 0; t < columns; t++) {
                hidden[(r * columns + t) * 2] = tokens[r * columns + t];
                hidden[(r * columns + t) * 2 + 1] = start[r] + t;
            }
        }
        return backend.fromFloats(hidden, Shape.of(rows, columns, 2), DType.F32);
    }

    @Override
    public Tensor projectLogits(Tensor hidden, LogitSelection selection) {
        if (!(selection instanceof LogitSelection.Last)) throw new UnsupportedOperationException("generation projects the last position only");
        int rows = hidden.dim(0), columns = hidden.dim(1);
        float[] h = backend.toFloats(hidden);
        float[] logits = new float[rows * vocab];
        for (int r = 0; r < rows; r++) {
            int at = (r * columns + columns - 1) * 2;
            int peak = next((int) h[at], (int) h[at + 1]);
            for (int v = 0; v < vocab; v++) {
                // A smooth hill around the peak, so sampling at a temperature has real choices.
                int distance = Math.min(Math.floorMod(v - peak, vocab), Math.floorMod(peak - v, vocab));
                logits[r * vocab + v] = -0.7f * distance;
            }
        }
        return backend.fromFloats(logits, Shape.of(rows, 1, vocab), DType.F32);
    }
}
