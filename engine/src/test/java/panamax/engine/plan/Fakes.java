package panamax.engine.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelSpec;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.engine.plugins.DiscoveredPlugin;
import panamax.engine.plugins.PluginKind;
import panamax.engine.plugins.PluginRegistry;

/**
 * Small test providers that declare capabilities like the real plugins do, so planner tests do not
 * depend on the kv-codecs and kv-layouts modules. Their factories are never called by the planner.
 */
final class Fakes {
    private Fakes() {
    }

    record FakeBackend(String id, Optional<String> unavailable, Set<DType> storage) implements BackendProvider {
        @Override
        public BackendCapabilities capabilities() {
            return new BackendCapabilities(storage, Set.of(4, 8), Set.of(64), false, Set.of("cpu"));
        }

        @Override
        public Optional<String> unavailableReason() {
            return unavailable;
        }

        @Override
        public Backend create(BackendOptions options) {
            throw new UnsupportedOperationException("planner tests never create backends");
        }
    }

    static BackendProvider backend(String id) {
        return new FakeBackend(id, Optional.empty(), Set.of(DType.F32, DType.BF16, DType.F16));
    }

    static BackendProvider unavailableBackend(String id, String reason) {
        return new FakeBackend(id, Optional.of(reason), Set.of(DType.F32, DType.BF16));
    }

    /**
     * A codec storing {@code bitsPerElement} per element plus {@code metaBytes} per head, or, with
     * {@code groupSize > 0}, a group-wise codec that refuses head dims not divisible by the group.
     */
    record Codec(String id, List<ParamSpec> params, boolean rotatedValues) implements KvCodecProvider {
        @Override
        public KvCodecCapabilities capabilities() {
            return KvCodecCapabilities.builder(id + " test codec").params(params).rotatedValues(rotatedValues).build();
        }

        @Override
        public CodecShape shape(PluginParams p, int headDim) {
            List<PlaneSpec> planes = new ArrayList<>();
            if (p.values().containsKey("bits")) {
                int bits = p.getInt("bits"), group = p.getInt("group_size");
                if (headDim % group != 0) throw new InvalidParameterException("group_size", group, "a divisor of head dim " + headDim);
                planes.add(new PlaneSpec("packed", headDim * bits / 32, DType.U32));
                planes.add(new PlaneSpec("scales", headDim / group, DType.BF16));
                planes.add(new PlaneSpec("biases", headDim / group, DType.BF16));
            } else {
                DType dtype = p.values().containsKey("dtype") ? DType.valueOf(p.get("dtype").toUpperCase()) : DType.BF16;
                planes.add(new PlaneSpec("values", headDim, dtype));
            }
            return new CodecShape(headDim, planes, planes);
        }

        @Override
        public KvCodec create(PluginParams p, CodecContext context) {
            throw new UnsupportedOperationException("planner tests never create codecs");
        }
    }

    static KvCodecProvider identity() {
        return new Codec("identity", List.of(new ParamSpec("dtype", "storage dtype", List.of("bf16", "f16", "f32"), "bf16")), false);
    }

    static KvCodecProvider affine() {
        return new Codec("affine", List.of(new ParamSpec("bits", "bits", List.of("2", "3", "4", "5", "6", "8"), "4"),
                new ParamSpec("group_size", "group", List.of("32", "64", "128"), "64")), false);
    }

    static KvCodecProvider rotated(String id) {
        return new Codec(id, List.of(), true);
    }

    /** A layout keeping {@code min(window, context)} tokens when bounded, every token otherwise. */
    record Layout(String id, LayoutCapabilities caps) implements KvLayoutProvider {
        @Override
        public LayoutCapabilities capabilities() {
            return caps;
        }

        @Override
        public long storedTokens(PluginParams params, long contextTokens) {
            return params.values().containsKey("window") && !params.get("window").equals("0")
                    ? Math.min(contextTokens, params.getInt("window")) : contextTokens;
        }

        @Override
        public KvLayout create(PluginParams params, LayoutContext context) {
            throw new UnsupportedOperationException("planner tests never create layouts");
        }
    }

    static KvLayoutProvider full(boolean hostsRotated) {
        return new Layout("full", LayoutCapabilities.builder("every token")
                .batchable(true).trimmable(true).hostsRotatedValues(hostsRotated).build());
    }

    static KvLayoutProvider rotating(boolean hostsRotated) {
        return new Layout("rotating", LayoutCapabilities.builder("ring buffer").params(List.of(
                new ParamSpec("window", "tokens kept", List.of(), "4096"), new ParamSpec("keep", "sink tokens", List.of(), "0")))
                .batchable(true).trimmable(true).bounded(true).hostsRotatedValues(hostsRotated).build());
    }

    static KvLayoutProvider delayed() {
        return new Layout("delayed", LayoutCapabilities.builder("identity first").params(List.of(
                new ParamSpec("start", "conversion offset", List.of(), "0"),
                new ParamSpec("storage", "wrapped storage", List.of("full", "rotating"), "full"),
                new ParamSpec("window", "tokens kept, 0 for all", List.of(), "0"), new ParamSpec("keep", "sink tokens", List.of(), "0")))
                .batchable(true).trimmable(true).hostsRotatedValues(true).convertsCodec(true).build());
    }

    /** A registry of the given providers, all from origin {@code test}. */
    static PluginRegistry registry(List<Object> providers) {
        List<DiscoveredPlugin<?>> plugins = new ArrayList<>();
        for (Object p : providers) {
            switch (p) {
                case BackendProvider b -> plugins.add(DiscoveredPlugin.describe(PluginKind.BACKEND, b.id(), b, "test"));
                case KvCodecProvider c -> plugins.add(DiscoveredPlugin.describe(PluginKind.CODEC, c.id(), c, "test"));
                case KvLayoutProvider l -> plugins.add(DiscoveredPlugin.describe(PluginKind.LAYOUT, l.id(), l, "test"));
                default -> throw new IllegalArgumentException("not a provider: " + p);
            }
        }
        return PluginRegistry.of(plugins, List.of());
    }

    static ExecutionPlanner planner(PluginRegistry registry) {
        Map<String, BackendProvider> backends = new TreeMap<>();
        Map<String, KvCodecProvider> codecs = new TreeMap<>();
        Map<String, KvLayoutProvider> layouts = new TreeMap<>();
        registry.backends().forEach(p -> backends.put(p.id(), p.provider()));
        registry.codecs().forEach(p -> codecs.put(p.id(), p.provider()));
        registry.layouts().forEach(p -> layouts.put(p.id(), p.provider()));
        return new ExecutionPlanner(backends, codecs, layouts, registry);
    }

    static ExecutionPlanner standardPlanner() {
        return planner(registry(List.of(backend("java"), unavailableBackend("mlx", "libmlxc.so not found on java.library.path"),
                identity(), affine(), full(false), rotating(false), delayed())));
    }

    static KvScheme scheme(String codec, Map<String, String> params) {
        return new KvScheme(codec, params, OptionalInt.empty(), OptionalInt.empty(), Optional.empty());
    }

    static KvScheme affine4() {
        return scheme("affine", Map.of("bits", "4", "group_size", "64"));
    }

    static ExecutionRequirements requirements(ModelSpec model, KvScheme kv, long context, long budget) {
        return new ExecutionRequirements(model, Optional.empty(), kv, Batching.SERIAL, Method.AUTOREGRESSIVE, 1, context, budget, false);
    }

    static ModelSpec model(List<LayerKvNeed> layers, int maxPositions) {
        return new ModelSpec("test", "llama", layers, DType.BF16, 0, 1000, maxPositions);
    }
}
