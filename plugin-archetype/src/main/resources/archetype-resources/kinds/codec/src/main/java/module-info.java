/**
 * The {@code ${pluginId}} KV codec plugin. It requires panamax.api only and is found by panamax when its
 * jar is in a plugins folder ({@code panamax plugins --plugins DIR}).
 */
module ${package} {
    requires panamax.api;

    provides panamax.api.kv.KvCodecProvider with ${package}.Bf16CodecProvider;
}
