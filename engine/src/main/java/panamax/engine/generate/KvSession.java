package panamax.engine.generate;

import panamax.api.kv.KvLayout;
import panamax.api.model.KvState;
import panamax.engine.runtime.LayerCaches;

/** The KV cache of one generation call, owned by the generator that opened it. */
public interface KvSession extends KvState, AutoCloseable {
    @Override
    void close();

    /** Adapts the caches {@link panamax.engine.runtime.KvStateFactory} builds; takes ownership of them. */
    static KvSession of(LayerCaches caches) {
        return new KvSession() {
            @Override
            public KvLayout layer(int layer) {
                return caches.layer(layer);
            }

            @Override
            public int layers() {
                return caches.layers();
            }

            @Override
            public void close() {
                caches.close();
            }
        };
    }
}
