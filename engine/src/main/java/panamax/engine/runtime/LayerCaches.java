package panamax.engine.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import panamax.api.draft.RowCaches;
import panamax.api.kv.KvLayout;

/**
 * The per-layer caches of one batch, built by {@link KvStateFactory}. Owns every layout (and through
 * them the codecs); layers that share a donor's cache hold the same instance, closed once.
 * Not thread-safe.
 */
public final class LayerCaches implements RowCaches {
    private final KvLayout[] layers;
    private boolean closed;

    LayerCaches(KvLayout[] layers) {
        this.layers = layers.clone();
    }

    @Override
    public KvLayout layer(int layer) {
        if (closed) throw new IllegalStateException("the KV caches are closed");
        return layers[layer];
    }

    @Override
    public int layers() {
        return layers.length;
    }

    /**
     * Replaces layer {@code layer}'s layout (e.g. by the result of {@link KvLayout#merge}), closing the
     * old one unless it is {@code replacement} itself. Takes ownership of {@code replacement}.
     */
    public void replace(int layer, KvLayout replacement) {
        KvLayout old = layers[layer];
        for (int i = 0; i < layers.length; i++) {
            if (layers[i] == old) layers[i] = replacement; // layers reading a donor follow it
        }
        if (old != replacement) old.close();
    }

    /** Rows of the batch, as layer 0 sees them. */
    @Override
    public int rows() {
        return layers.length == 0 ? 0 : layers[0].rows();
    }

    /** Each layout once, in layer order: layers that read a donor's cache share its instance. */
    public List<KvLayout> distinctLayouts() {
        return distinct();
    }

    /**
     * New caches holding only row {@code r} of these, without padding ({@link KvLayout#extractRow}),
     * with the same donor sharing; owned by the caller. These caches are unchanged.
     */
    public LayerCaches extractRow(int r) {
        return derive(layout -> layout.extractRow(r));
    }

    /**
     * Appends the rows of {@code other} after these rows ({@link KvLayout#merge}), left-padding every
     * row to a common width. {@code other} must come from the same plan; it is left open, owned by its caller.
     */
    public void mergeIn(LayerCaches other) {
        if (other.layers.length != layers.length) {
            throw new IllegalArgumentException("merge: expected caches of " + layers.length + " layers, found " + other.layers.length);
        }
        Map<KvLayout, KvLayout> merged = new IdentityHashMap<>();
        try {
            for (int i = 0; i < layers.length; i++) {
                if (!merged.containsKey(layers[i])) merged.put(layers[i], layers[i].merge(List.of(other.layers[i])));
            }
        } catch (RuntimeException e) {
            merged.values().forEach(KvLayout::close);
            throw e;
        }
        KvLayout[] old = layers.clone();
        for (int i = 0; i < layers.length; i++) layers[i] = merged.get(old[i]);
        Set<KvLayout> closedOnce = Collections.newSetFromMap(new IdentityHashMap<>());
        for (KvLayout l : old) if (closedOnce.add(l)) l.close();
    }

    /** {@link #mergeIn(LayerCaches)} for caches this factory built. */
    @Override
    public void mergeIn(RowCaches other) {
        if (!(other instanceof LayerCaches caches)) {
            throw new IllegalArgumentException("merge: expected caches built by KvStateFactory, found " + other.getClass().getName());
        }
        mergeIn(caches);
    }

    /** {@link KvLayout#beginRound} on every layout. */
    @Override
    public void beginRound() {
        for (KvLayout l : distinct()) l.beginRound();
    }

    /** {@link KvLayout#rollback} on every layout: row r keeps {@code keep[r]} of the tokens it appended in the round. */
    @Override
    public void rollback(int[] keep) {
        for (KvLayout l : distinct()) l.rollback(keep);
    }

    /** Keeps only the given rows, in that order, in every layout ({@link KvLayout#filterRows}). */
    @Override
    public void filterRows(int[] keep) {
        for (KvLayout l : distinct()) l.filterRows(keep);
    }

    /**
     * Removes the last {@code n} tokens of every row in every layout, or nothing when some layout
     * cannot ({@link KvLayout#isTrimmable()} false, e.g. a rotating layout that wrapped).
     *
     * @return whether the caches were trimmed by exactly {@code n}
     */
    public boolean trim(int n) {
        if (n == 0) return true;
        for (KvLayout l : distinct()) if (!l.isTrimmable()) return false;
        boolean exact = true;
        for (KvLayout l : distinct()) exact &= l.trim(n) == n;
        return exact;
    }

    /** {@link KvLayout#preparePrefill} on every layout. */
    @Override
    public void preparePrefill(int[] lengths, int[] leftPadding, int[] rightPadding) {
        for (KvLayout l : distinct()) l.preparePrefill(lengths, leftPadding, rightPadding);
    }

    /** {@link KvLayout#finalizePrefill} on every layout. */
    @Override
    public void finalizePrefill() {
        for (KvLayout l : distinct()) l.finalizePrefill();
    }

    /** Bytes the layouts would hold at {@code columns} columns per row ({@link KvLayout#projectedBytes}), shared layers once. */
    public long projectedBytes(long columns) {
        long sum = 0;
        for (KvLayout l : distinct()) sum += l.projectedBytes(columns);
        return sum;
    }

    /** Columns the widest row spans now (left padding plus tokens), as layer 0 sees it. */
    public int width() {
        if (layers.length == 0) return 0;
        int[] offsets = layers[0].offsets(), left = layers[0].leftPadding();
        int width = 0;
        for (int r = 0; r < offsets.length; r++) width = Math.max(width, offsets[r] + left[r]);
        return width;
    }

    private LayerCaches derive(UnaryOperator<KvLayout> derivation) {
        Map<KvLayout, KvLayout> derived = new IdentityHashMap<>();
        KvLayout[] result = new KvLayout[layers.length];
        try {
            for (int i = 0; i < layers.length; i++) {
                result[i] = derived.computeIfAbsent(layers[i], derivation::apply);
            }
        } catch (RuntimeException e) {
            derived.values().forEach(KvLayout::close);
            throw e;
        }
        return new LayerCaches(result);
    }

    /** Bytes the caches hold per token across all layers (shared layers counted once). */
    public long bytesPerToken() {
        long sum = 0;
        for (KvLayout l : distinct()) sum += l.bytesPerToken();
        return sum;
    }

    /** Closes every layout once. Idempotent. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        RuntimeException first = null;
        for (KvLayout l : distinct()) {
            try {
                l.close();
            } catch (RuntimeException e) {
                if (first == null) first = e; else first.addSuppressed(e);
            }
        }
        if (first != null) throw first;
    }

    /** Each layout once (by identity), in layer order. */
    private List<KvLayout> distinct() {
        Set<KvLayout> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<KvLayout> ordered = new ArrayList<>();
        for (KvLayout l : layers) if (seen.add(l)) ordered.add(l);
        return ordered;
    }
}
