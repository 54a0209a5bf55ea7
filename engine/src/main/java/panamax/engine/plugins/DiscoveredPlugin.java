package panamax.engine.plugins;

import panamax.api.plan.ChosenPlugin;

/**
 * One provider the engine found, with where it came from. The provider instance is shared by the
 * registry and everything it is injected into; providers are stateless declarations and factories.
 *
 * @param kind     backend, codec, layout or model
 * @param id       the provider's id
 * @param provider the provider instance (a {@link PluginKind#service()} implementation)
 * @param module   the JPMS module that provides it ({@code unnamed} for a class-path provider)
 * @param version  the module's version, or empty when the module declares none
 * @param origin   {@code boot}, or the plugins directory it was loaded from
 */
public record DiscoveredPlugin<T>(PluginKind kind, String id, T provider, String module, String version,
                                  String origin) {
    /** Origin of providers on the application's own module path. */
    public static final String BOOT = "boot";

    /** {@code module@version}, or the module name alone when it has no version. */
    public String moduleAndVersion() {
        return version.isEmpty() ? module : module + "@" + version;
    }

    /** The plan's view of this plugin. */
    public ChosenPlugin toChosen() {
        return new ChosenPlugin(kind.label(), id, moduleAndVersion(), origin);
    }

    /** A plugin with module and version read from the provider class's module descriptor. */
    public static <T> DiscoveredPlugin<T> describe(PluginKind kind, String id, T provider, String origin) {
        Module module = provider.getClass().getModule();
        var descriptor = module.getDescriptor();
        String name = module.isNamed() ? module.getName() : "unnamed";
        String version = descriptor == null ? "" : descriptor.rawVersion().orElse("");
        return new DiscoveredPlugin<>(kind, id, provider, name, version, origin);
    }
}
