/**
 * The {@code ${pluginId}} model plugin. It requires panamax.model.support (which brings panamax.api) and
 * is found by panamax when its jar is in a plugins folder ({@code panamax plugins --plugins DIR}).
 */
module ${package} {
    requires panamax.model.support;

    provides panamax.api.model.ModelPlugin with ${package}.Gpt2Plugin;
}
