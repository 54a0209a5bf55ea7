/**
 * KV codec plugins: identity, affine (MLX-exact) and TurboQuant. No package is exported; the
 * engine (and {@code panamax bench codecs}) find the codecs through {@link panamax.api.kv.KvCodecProvider}.
 */
module panamax.kv.codecs {
    requires panamax.api;

    uses panamax.api.tensor.BackendProvider;
    uses panamax.api.kv.KvCodecProvider;

    provides panamax.api.kv.KvCodecProvider with
            panamax.kv.codecs.identity.IdentityCodecProvider,
            panamax.kv.codecs.affine.AffineCodecProvider,
            panamax.kv.codecs.turboquant.TurboQuantCodecProvider;
}
