/** KV codec plugins: identity, affine (MLX-exact) and TurboQuant. */
module panamax.kv.codecs {
    requires panamax.api;
}
