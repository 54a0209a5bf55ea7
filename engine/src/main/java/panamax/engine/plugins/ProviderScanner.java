package panamax.engine.plugins;

import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.function.Predicate;

/**
 * Instantiates the providers a {@link ServiceLoader} finds, one at a time, so that a provider whose
 * constructor or declarations throw is reported by class name and the rest still load.
 */
final class ProviderScanner {
    private ProviderScanner() {
    }

    static void scan(ServiceLoader<?> loader, PluginKind kind, Predicate<Class<?>> accept, String origin,
                     List<DiscoveredPlugin<?>> found, List<PluginFailure> failures) {
        Iterator<? extends ServiceLoader.Provider<?>> providers = loader.stream().iterator();
        while (true) {
            ServiceLoader.Provider<?> provider;
            try {
                if (!providers.hasNext()) return;
                provider = providers.next();
            } catch (ServiceConfigurationError | LinkageError e) {
                // The loader cannot be trusted to continue after a lookup error.
                failures.add(new PluginFailure(origin, kind, PluginFailure.describe(e)));
                return;
            }
            if (!accept.test(provider.type())) continue;
            String source = provider.type().getName() + " (" + origin + ")";
            try {
                Object instance = provider.get();
                String id = kind.probe(instance);
                found.add(DiscoveredPlugin.describe(kind, id, instance, origin));
            } catch (RuntimeException | ServiceConfigurationError | LinkageError e) {
                failures.add(new PluginFailure(source, kind, PluginFailure.describe(e)));
            }
        }
    }
}
