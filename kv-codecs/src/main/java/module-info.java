/**
 * KV codec plugins: identity, affine (MLX-exact) and TurboQuant. The implementation packages are
 * not exported; the engine finds the codecs through {@link panamax.api.kv.KvCodecProvider}. The only
 * exported package holds the codec benchmark that {@code panamax bench codecs} runs.
 */
module panamax.kv.codecs {
    requires panamax.api;

    exports panamax.kv.codecs.bench;

    uses panamax.api.tensor.BackendProvider;
    uses panamax.api.kv.KvCodecProvider;

    provides panamax.api.kv.KvCodecProvider with
            panamax.kv.codecs.identity.IdentityCodecProvider,
            panamax.kv.codecs.affine.AffineCodecProvider,
            panamax.kv.codecs.turboquant.TurboQuantCodecProvider;

    // `panamax bench codecs` finds the benchmark as a JDK tool, so the CLI never requires this module.
    provides java.util.spi.ToolProvider with panamax.kv.codecs.bench.CodecBenchTool;
}
