/**
 * A third-party KV codec: FP8 E4M3 with one scale per (token, head). Depends on panamax.api only;
 * built to its own jar and discovered when dropped into a {@code plugins/} folder.
 */
module panamax.example.fp8 {
    requires panamax.api;

    provides panamax.api.kv.KvCodecProvider with panamax.example.fp8.Fp8CodecProvider;
}
