/**
 * The SPIs of panamax and the value types they exchange. Holds interfaces and records only:
 * tensors and backends, KV codecs and layouts, models and graphs, execution plans and errors —
 * plus the native memory that backends and model loaders share ({@code panamax.api.memory}).
 * Plugins require this module and nothing else of panamax.
 */
module panamax.api {
    exports panamax.api.tensor;
    exports panamax.api.tensor.kernel;
    exports panamax.api.kv;
    exports panamax.api.model;
    exports panamax.api.plan;
    exports panamax.api.error;
    exports panamax.api.memory;
    exports panamax.api.draft;

    uses panamax.api.tensor.BackendProvider;
    uses panamax.api.kv.KvCodecProvider;
    uses panamax.api.kv.KvLayoutProvider;
    uses panamax.api.model.ModelPlugin;
    uses panamax.api.draft.DrafterProvider;
}
