package panamax.models.decoder;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import panamax.api.model.LogitSelection;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.engine.parity.ParityCheck;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.runtime.LayerCaches;
import panamax.engine.wiring.Engine;
import panamax.model.support.weights.WeightFiles;

/** Test checkpoints derived from the fixtures, and a one-prefill logits runner. */
final class Checkpoints {
    private Checkpoints() {
    }

    /** A tensor read back as floats with its shape. */
    record Weights(Map<String, float[]> values, Map<String, int[]> shapes) {
    }

    static Path fixture(String name) {
        Path root = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures")).toAbsolutePath().normalize();
        Path dir = root.resolve(name);
        if (!Files.isDirectory(dir)) throw new AssertionError("fixture " + dir + " is missing (set -Dpanamax.fixtures=DIR)");
        return dir;
    }

    static Backend backend() {
        BackendProvider p = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(b -> b.id().equals("java")).findFirst().orElseThrow(() -> new AssertionError("no java backend on the test path"));
        return p.create(new BackendOptions(2, Optional.empty(), Map.of()));
    }

    static Weights read(Path dir, Backend backend) {
        Map<String, float[]> values = new LinkedHashMap<>();
        Map<String, int[]> shapes = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            WeightFiles files = WeightFiles.open(dir, arena);
            for (String name : files.names()) {
                var e = files.entry(name).orElseThrow();
                try (Tensor t = files.load(name, backend, e.shape().dims(), e.dtype())) {
                    values.put(name, backend.toFloats(t));
                    shapes.put(name, e.shape().dims());
                }
            }
        }
        return new Weights(values, shapes);
    }

    /** A new directory with {@code fixture}'s config files (config.json replaced when given). */
    static Path copyConfig(String fixture, Path target, String configJson) throws IOException {
        Files.createDirectories(target);
        Path src = fixture(fixture);
        for (String f : new String[]{"config.json", "generation_config.json"}) {
            if (Files.exists(src.resolve(f))) Files.copy(src.resolve(f), target.resolve(f));
        }
        if (configJson != null) Files.writeString(target.resolve("config.json"), configJson);
        return target;
    }

    /** Logits at every position of one prefill of {@code ids}, with identity KV. */
    static float[] logits(RuntimeModel model, Backend backend, int[] ids) {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        ParityCheck check = new ParityCheck(Engine.start(registry).planner(), KvStateFactory.of(registry), KvScheme.identity());
        try (LayerCaches caches = KvStateFactory.of(registry).create(check.plan(model, backend, 1, ids.length), backend, 1);
             Tensor in = backend.fromInts(ids, Shape.of(1, ids.length), DType.I32);
             Tensor hidden = model.graph().forwardHidden(in, caches);
             Tensor logits = model.graph().projectLogits(hidden, LogitSelection.ALL)) {
            return backend.toFloats(logits);
        }
    }

    static double maxAbsDiff(float[] a, float[] b) {
        if (a.length != b.length) throw new AssertionError("lengths " + a.length + " and " + b.length);
        double m = 0;
        for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
        return m;
    }

    static final int[] PROMPT = {5, 17, 300, 42, 7, 99, 511, 1, 250, 3, 64, 128};
}
