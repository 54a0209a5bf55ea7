package panamax.api.model;

import panamax.api.kv.KvLayout;

/** The per-layer caches a forward pass reads and appends to; owned by the engine. */
public interface KvState {
    /** The cache of attention layer {@code layer} (borrowed). */
    KvLayout layer(int layer);

    /** Number of attention layers. */
    int layers();
}
