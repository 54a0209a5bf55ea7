/**
 * The engine: finds plugins (boot layer and a plugins folder), wires them with Guice and resolves
 * execution plans from their declared capabilities.
 */
module panamax.engine {
    requires transitive panamax.api;
    // parity reads its reference files through the checked safetensors header
    requires panamax.model.support;
    requires com.google.guice;
    requires jakarta.inject;
    requires com.fasterxml.jackson.databind;

    exports panamax.engine.plugins;
    exports panamax.engine.plan;
    exports panamax.engine.wiring;
    exports panamax.engine.runtime;
    exports panamax.engine.parity;
    exports panamax.engine.generate;
    exports panamax.engine.eval;
    exports panamax.engine.serve;
    exports panamax.engine.structured;
    exports panamax.engine.speculative;

    // Guice reflects on the injected constructors of these packages.
    opens panamax.engine.plan;
    opens panamax.engine.wiring;

    uses panamax.api.tensor.BackendProvider;
    uses panamax.api.kv.KvCodecProvider;
    uses panamax.api.kv.KvLayoutProvider;
    uses panamax.api.model.ModelPlugin;
    uses panamax.api.model.TokenizerProvider;
    uses panamax.api.draft.DrafterProvider;

    // the built-in drafters of speculative decoding (found through ServiceLoader like any other)
    provides panamax.api.draft.DrafterProvider with panamax.engine.draft.NgramDrafterProvider,
            panamax.engine.draft.DraftModelDrafterProvider;
}
