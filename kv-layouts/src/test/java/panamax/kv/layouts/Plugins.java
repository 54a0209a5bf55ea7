package panamax.kv.layouts;

import java.io.File;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;

/**
 * Finds the plugins the tests run with, by id, the way the engine does: through ServiceLoader.
 * Tests run on the class path; a plugin jar that declares its providers only in module-info
 * (no META-INF/services) is read through its module descriptor's {@code provides}.
 */
final class Plugins {
    private Plugins() {
    }

    static Backend javaBackend() {
        BackendProvider provider = find(BackendProvider.class, "java", BackendProvider::id);
        return provider.create(new BackendOptions(2, java.util.Optional.empty(), java.util.Map.of()));
    }

    static KvCodecProvider codec(String id) {
        return find(KvCodecProvider.class, id, KvCodecProvider::id);
    }

    static KvLayoutProvider layout(String id) {
        return find(KvLayoutProvider.class, id, KvLayoutProvider::id);
    }

    private static <S> S find(Class<S> service, String id, java.util.function.Function<S, String> idOf) {
        List<S> found = new ArrayList<>();
        ServiceLoader.load(service).forEach(found::add);
        if (found.stream().noneMatch(p -> idOf.apply(p).equals(id))) found.addAll(fromDescriptors(service));
        return found.stream().filter(p -> idOf.apply(p).equals(id)).findFirst().orElseThrow(() ->
                new AssertionError("no " + service.getSimpleName() + " with id " + id + " among "
                        + found.stream().map(idOf).toList()));
    }

    private static <S> List<S> fromDescriptors(Class<S> service) {
        List<S> out = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.endsWith(".jar")) continue;
            for (ModuleReference ref : ModuleFinder.of(Path.of(entry)).findAll()) {
                for (ModuleDescriptor.Provides p : ref.descriptor().provides()) {
                    if (!p.service().equals(service.getName())) continue;
                    for (String impl : p.providers()) out.add(instantiate(service, impl));
                }
            }
        }
        return out;
    }

    private static <S> S instantiate(Class<S> service, String impl) {
        try {
            return service.cast(Class.forName(impl).getConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot instantiate provider " + impl, e);
        }
    }
}
