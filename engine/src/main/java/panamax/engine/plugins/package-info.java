/**
 * Plugin discovery: {@link java.util.ServiceLoader} over the boot layer and over module layers
 * built from the jars of a plugins directory. Failures are collected, never thrown.
 *
 * {@snippet :
 * PluginRegistry registry = PluginRegistry.discover(Optional.of(Path.of("plugins")));
 * for (DiscoveredPlugin<?> p : registry.all()) {
 *     System.out.println(p.kind().label() + " " + p.id() + " " + p.moduleAndVersion() + " " + p.origin());
 * }
 * }
 */
package panamax.engine.plugins;
