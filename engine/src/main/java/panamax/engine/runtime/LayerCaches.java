package panamax.engine.runtime;

import java.util.IdentityHashMap;
import java.util.Set;
import java.util.Collections;
import panamax.api.kv.KvLayout;
import panamax.api.model.KvState;

/**
 * The per-layer caches of one batch, built by {@link KvStateFactory}. Owns every layout (and through
 * them the codecs); layers that share a donor's cache hold the same instance, closed once.
 * Not thread-safe.
 */
public final class LayerCaches implements KvState, AutoCloseable {
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
    public int rows() {
        return layers.length == 0 ? 0 : layers[0].rows();
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

    private Set<KvLayout> distinct() {
        Set<KvLayout> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (KvLayout l : layers) seen.add(l);
        return seen;
    }
}
