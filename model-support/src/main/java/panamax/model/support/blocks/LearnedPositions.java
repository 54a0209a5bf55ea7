package panamax.model.support.blocks;

import panamax.api.kv.KvLayout;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A learned absolute position table (GPT-2's {@code wpe}): the tokens appended next to a layer's KV
 * layout read the rows of their positions, which start at each row's {@code ropeOffsets()}, so a
 * left-padded row's first real token sits at position 0. Owns its table. Thread-safe for
 * concurrent {@link #lookup}.
 */
public final class LearnedPositions implements AutoCloseable {
    private final Tensor table; // (positions, hidden)

    /** Takes ownership of {@code table [positions, hidden]}. */
    public LearnedPositions(Tensor table) {
        this.table = table;
    }

    /**
     * The position rows {@code [B, T, hidden]} of {@code t} tokens per row about to be appended to
     * {@code cache} (borrowed); padding columns, before position 0, read row 0 (attention masks them).
     *
     * @throws IllegalArgumentException when a position is beyond the table
     */
    public Tensor lookup(Backend backend, KvLayout cache, int b, int t) {
        int[] first = cache.ropeOffsets();
        int[] positions = new int[b * t];
        for (int r = 0; r < b; r++) {
            for (int i = 0; i < t; i++) {
                int p = first[r] + i;
                if (p >= table.dim(0)) throw new IllegalArgumentException("position " + p + " beyond the " + table.dim(0) + " learned positions");
                positions[r * t + i] = Math.max(p, 0);
            }
        }
        try (Tensor pos = backend.fromInts(positions, Shape.of(b, t), DType.I32)) {
            return backend.ops().take(table, pos, 0);
        }
    }

    @Override
    public void close() {
        table.close();
    }
}
