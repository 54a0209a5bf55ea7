/** A third-party KV codec: FP8 E4M3 with a per-head scale. Depends on panamax.api only. */
module panamax.example.fp8 {
    requires panamax.api;
}
