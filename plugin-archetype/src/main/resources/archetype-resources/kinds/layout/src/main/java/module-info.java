/**
 * The {@code ${pluginId}} KV layout plugin. It requires panamax.api only and is found by panamax when its
 * jar is in a plugins folder ({@code panamax plugins --plugins DIR}).
 */
module ${package} {
    requires panamax.api;

    provides panamax.api.kv.KvLayoutProvider with ${package}.ForwardingLayoutProvider;
    // finds the layout that stores its rows
    uses panamax.api.kv.KvLayoutProvider;
}
