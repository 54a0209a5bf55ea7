package panamax.engine.plugins;

import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.module.ResolutionException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Builds module layers over the jars of a plugins directory, child layers of the boot layer. A jar
 * that cannot be read or resolved is reported by file name and left out; the good jars still load.
 */
final class PluginLayers {
    private PluginLayers() {
    }

    /**
     * The layers holding the directory's plugin modules: one layer for all jars when they resolve
     * together, else one layer per jar that resolves on its own.
     */
    static List<ModuleLayer> build(Path directory, List<PluginFailure> failures) {
        Map<String, Path> modules = readableModules(jars(directory, failures), failures);
        if (modules.isEmpty()) return List.of();
        try {
            return List.of(define(List.copyOf(modules.values()), modules.keySet()));
        } catch (FindException | ResolutionException | LayerInstantiationException | SecurityException together) {
            // One jar spoils the combined layer (missing dependency, split package...): isolate each.
            List<ModuleLayer> layers = new ArrayList<>();
            modules.forEach((name, jar) -> {
                try {
                    layers.add(define(List.of(jar), Set.of(name)));
                } catch (FindException | ResolutionException | LayerInstantiationException | SecurityException e) {
                    failures.add(new PluginFailure(jar.toString(), null, "module " + name + " cannot be loaded: " + PluginFailure.describe(e)));
                }
            });
            return layers;
        }
    }

    private static List<Path> jars(Path directory, List<PluginFailure> failures) {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            failures.add(new PluginFailure(directory.toString(), null, "cannot list plugins directory: " + PluginFailure.describe(e)));
            return List.of();
        }
    }

    /** Module name to jar, for every jar that reads as exactly one module not already present. */
    private static Map<String, Path> readableModules(List<Path> jars, List<PluginFailure> failures) {
        Map<String, Path> modules = new LinkedHashMap<>();
        for (Path jar : jars) {
            Set<ModuleReference> found;
            try {
                found = ModuleFinder.of(jar).findAll();
            } catch (FindException | SecurityException e) {
                failures.add(new PluginFailure(jar.toString(), null, "not a readable module jar: " + PluginFailure.describe(e)));
                continue;
            }
            if (found.size() != 1) {
                failures.add(new PluginFailure(jar.toString(), null, "expected one module in the jar, found " + found.size()));
                continue;
            }
            String name = found.iterator().next().descriptor().name();
            if (modules.containsKey(name)) {
                failures.add(new PluginFailure(jar.toString(), null, "module " + name + " is also in " + modules.get(name)
                        + "; a module may be installed once, this jar is ignored"));
            } else if (ModuleLayer.boot().findModule(name).isPresent()) {
                failures.add(new PluginFailure(jar.toString(), null, "module " + name
                        + " is already part of the application (boot layer); this jar is ignored"));
            } else {
                modules.put(name, jar);
            }
        }
        return modules;
    }

    private static ModuleLayer define(List<Path> jars, Set<String> roots) {
        ModuleLayer parent = ModuleLayer.boot();
        ModuleFinder finder = ModuleFinder.of(jars.toArray(Path[]::new));
        Configuration configuration = parent.configuration().resolve(finder, ModuleFinder.of(), roots);
        return parent.defineModulesWithOneLoader(configuration, ClassLoader.getSystemClassLoader());
    }
}
