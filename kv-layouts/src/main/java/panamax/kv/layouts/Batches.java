package panamax.kv.layouts;

import java.util.ArrayList;
import java.util.List;
import panamax.api.kv.KvLayout;

/**
 * Row operations that build a new layout from existing ones ({@code merge}, {@code extractRow}).
 * The sources are
 * borrowed and left unchanged; the new layout shares their codec instances by reference count.
 */
final class Batches {
    private Batches() {
    }

    /**
     * A new layout with {@code first}'s rows then each other's at one width: time-ordered and left-padded,
     * or for a bounded layout in ring order ({@link RowMoves#ring}), so a row keeps its columns.
     */
    static BatchLayout merge(BatchLayout first, List<KvLayout> others) {
        List<BatchLayout> parts = new ArrayList<>();
        parts.add(first);
        for (KvLayout o : others) parts.add(compatible(first, o));
        int heads = 0;
        for (BatchLayout p : parts) {
            if (p.inRound()) throw new IllegalStateException("merge: a layout is inside a speculative round");
            if (p.heads != 0 && heads != 0 && p.heads != heads) {
                throw new IllegalArgumentException("merge: expected " + heads + " kv heads, found " + p.heads);
            }
            if (p.heads != 0) heads = p.heads;
        }
        int width = 0;
        for (BatchLayout p : parts) width = Math.max(width, RowMoves.settled(p.positions, first.retention, 0).width());
        List<Positions> records = new ArrayList<>();
        List<Remap> moves = new ArrayList<>();
        for (BatchLayout p : parts) {
            Remap m = RowMoves.settled(p.positions, first.retention, width);
            Positions moved = p.positions.copy();
            moved.apply(m);
            records.add(moved);
            moves.add(m);
        }
        BatchLayout merged = new BatchLayout(first.backend, first.layer, first.retention, first.start,
                first.codec.retain(), first.identity == null ? null : first.identity.retain(), heads,
                Positions.stack(records));
        int capacity = merged.capacityFor(width);
        if (capacity > 0 && heads > 0 && merged.rows() > 0) {
            merged.capacity = capacity;
            for (PlaneStore store : merged.stores()) {
                boolean targetKind = store == merged.target;
                List<PlaneStore.Handles> pieces = new ArrayList<>();
                try {
                    for (int i = 0; i < parts.size(); i++) {
                        BatchLayout p = parts.get(i);
                        PlaneStore source = targetKind ? p.target : p.staging;
                        pieces.add(source != null && source.allocated()
                                ? source.rearrangedForStacking(moves.get(i).columnSource(), capacity)
                                : store.zeros(p.rows(), heads, capacity));
                    }
                    store.stack(pieces);
                } finally {
                    pieces.forEach(PlaneStore.Handles::close);
                }
            }
        }
        return merged;
    }

    /** A new single-row layout holding row {@code r} in time order without padding (a bounded one: in ring order). */
    static BatchLayout extract(BatchLayout from, int r) {
        Remap m = from.retention.bounded()
                ? RowMoves.ring(from.positions, from.retention, new int[] {r}, 0, false)
                : RowMoves.timeOrdered(new RowMoves.Order(RowMoves.ownSources(from.positions), new int[] {r}, 0,
                        Integer.MAX_VALUE, new int[] {0}, 0));
        Positions record = from.positions.copy();
        record.apply(m);
        BatchLayout out = new BatchLayout(from.backend, from.layer, from.retention, from.start, from.codec.retain(),
                from.identity == null ? null : from.identity.retain(), from.heads, record);
        PlaneStore source = from.positions.converted(r) ? from.target : from.staging;
        int capacity = out.capacityFor(m.width());
        if (capacity > 0 && source != null && source.allocated()) {
            out.capacity = capacity;
            PlaneStore store = out.stores().getFirst();
            store.replace(source.rearranged(m.rowSource(), m.columnSource(), capacity));
        }
        return out;
    }

    private static BatchLayout compatible(BatchLayout first, KvLayout other) {
        if (!(other instanceof BatchLayout o)) {
            throw new IllegalArgumentException("merge: expected a layout of the kv-layouts plugins, found " + other.getClass().getName());
        }
        if (!o.retention.equals(first.retention) || o.start != first.start) {
            throw new IllegalArgumentException("merge: expected retention " + first.retention + " and start " + first.start
                    + ", found " + o.retention + " and start " + o.start);
        }
        if (!o.codec.codec().shape().equals(first.codec.codec().shape())) {
            throw new IllegalArgumentException("merge: expected codec planes " + first.codec.codec().shape()
                    + ", found " + o.codec.codec().shape());
        }
        return o;
    }
}
