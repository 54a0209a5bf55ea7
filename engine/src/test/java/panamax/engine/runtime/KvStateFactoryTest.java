package panamax.engine.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import panamax.api.error.UnsupportedCombinationException;
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
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelSpec;
import panamax.api.plan.Batching;
import panamax.api.plan.ChosenPlugin;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.Method;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.DType;
import org.junit.jupiter.api.Test;

class KvStateFactoryTest {
    /** What a fake layout was created with, and whether it was closed. */
    static final class Made {
        final PluginParams params;
        final LayoutContext context;
        final String layoutId;
        int closes;

        Made(String layoutId, PluginParams params, LayoutContext context) {
            this.layoutId = layoutId;
            this.params = params;
            this.context = context;
        }
    }

    private final List<Made> made = new ArrayList<>();
    private final List<CodecContext> codecContexts = new ArrayList<>();
    private final List<PluginParams> codecParams = new ArrayList<>();

    private KvCodecProvider codec(String id, List<ParamSpec> params) {
        return new KvCodecProvider() {
            public String id() { return id; }
            public KvCodecCapabilities capabilities() { return KvCodecCapabilities.builder(id).params(params).build(); }
            public CodecShape shape(PluginParams p, int headDim) { throw new UnsupportedOperationException(); }
            public KvCodec create(PluginParams p, CodecContext context) {
                codecContexts.add(context);
                codecParams.add(p);
                return (KvCodec) Proxy.newProxyInstance(KvCodec.class.getClassLoader(), new Class<?>[]{KvCodec.class},
                        (proxy, m, args) -> m.getName().equals("close") ? null : m.getName().equals("toString") ? id : null);
            }
        };
    }

    private KvLayoutProvider layout(String id, boolean converts) {
        return new KvLayoutProvider() {
            public String id() { return id; }
            public LayoutCapabilities capabilities() { return LayoutCapabilities.builder(id)
                    .batchable(true).trimmable(true).hostsRotatedValues(true).convertsCodec(converts).build(); }
            public KvLayout create(PluginParams params, LayoutContext context) {
                Made m = new Made(id, params, context);
                made.add(m);
                return (KvLayout) Proxy.newProxyInstance(KvLayout.class.getClassLoader(), new Class<?>[]{KvLayout.class},
                        (proxy, method, args) -> switch (method.getName()) {
                            case "close" -> { m.closes++; yield null; }
                            case "rows" -> context.rows();
                            case "bytesPerToken" -> 10L * (context.layer() + 1);
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> throw new UnsupportedOperationException(method.getName());
                        });
            }
        };
    }

    private KvStateFactory factory() {
        return new KvStateFactory(
                Map.of("identity", codec("identity", List.of(new ParamSpec("dtype", "dtype", List.of("bf16", "f16", "f32"), "bf16"))),
                        "affine", codec("affine", List.of())),
                Map.of("full", layout("full", false), "rotating", layout("rotating", false), "delayed", layout("delayed", true)));
    }

    private static ResolvedExecution plan(List<LayerKvNeed> needs, List<LayerPlan> layers) {
        ModelSpec spec = new ModelSpec("m", "llama", needs, DType.F32, 0, 10, 64);
        var req = new ExecutionRequirements(spec, Optional.empty(), KvScheme.identity(), Batching.SERIAL, Method.AUTOREGRESSIVE, 1, 0, 0, false);
        return new ResolvedExecution(req, new ChosenPlugin("backend", "java", "m", "boot"), List.of(), layers, 0, 0, 64, List.of());
    }

    private static LayerPlan lp(int layer, String layout, Map<String, String> params, String codec) {
        return new LayerPlan(layer, layout, PluginParams.of(params), codec, PluginParams.empty(), 0, 0, "test");
    }

    @Test
    void everyLayerGetsItsPlannedLayoutWithParamsHeadsAndRows() {
        var p = plan(List.of(LayerKvNeed.full(0, 2, 8), LayerKvNeed.sliding(1, 8, 4, 16)),
                List.of(lp(0, "full", Map.of(), "identity"), lp(1, "rotating", Map.of("window", "8", "keep", "0"), "affine")));
        try (LayerCaches caches = factory().create(p, null, 3, 7)) {
            assertEquals(2, caches.layers());
            assertEquals(3, caches.rows());
            assertEquals(List.of("full", "rotating"), made.stream().map(m -> m.layoutId).toList());
            assertEquals("8", made.get(1).params.get("window"));
            assertEquals(4, made.get(1).context.kvHeads());
            assertEquals(1, made.get(1).context.layer());
            assertEquals(16, codecContexts.get(1).headDim());
            assertEquals(7, codecContexts.get(1).seed());
            assertNull(made.get(0).context.identity(), "a layout that does not convert codecs gets no identity codec");
            assertEquals(10 + 20, caches.bytesPerToken());
        }
        assertTrue(made.stream().allMatch(m -> m.closes == 1), "closing the caches closes each layout once");
    }

    @Test
    void convertingLayoutsGetAnIdentityCodecInTheActivationDtype() {
        var p = plan(List.of(LayerKvNeed.full(0, 2, 8)), List.of(lp(0, "delayed", Map.of("start", "4"), "affine")));
        try (LayerCaches caches = factory().create(p, null, 1)) {
            assertTrue(made.get(0).context.identity() != null);
            assertEquals("f32", codecParams.get(1).get("dtype"));
            assertEquals(1, caches.layers());
        }
    }

    @Test
    void donorLayersShareTheDonorsLayoutAndItClosesOnce() {
        var p = plan(List.of(LayerKvNeed.full(0, 2, 8), new LayerKvNeed(1, 0, 2, 8, 0)),
                List.of(lp(0, "full", Map.of(), "identity"), lp(1, "full", Map.of(), "identity")));
        LayerCaches caches = factory().create(p, null, 1);
        assertSame(caches.layer(0), caches.layer(1));
        caches.close();
        caches.close();
        assertEquals(1, made.size());
        assertEquals(1, made.get(0).closes);
        assertThrows(IllegalStateException.class, () -> caches.layer(0));
    }

    @Test
    void aMissingLayoutIsRefusedByNameAndEarlierLayersAreClosed() {
        var p = plan(List.of(LayerKvNeed.full(0, 2, 8), LayerKvNeed.full(1, 2, 8)),
                List.of(lp(0, "full", Map.of(), "identity"), lp(1, "paged", Map.of(), "identity")));
        var e = assertThrows(UnsupportedCombinationException.class, () -> factory().create(p, null, 1));
        assertTrue(e.getMessage().contains("layout 'paged'"), e.getMessage());
        assertEquals(1, made.get(0).closes);
    }

    @Test
    void replacingALayoutClosesTheOldOne() {
        var p = plan(List.of(LayerKvNeed.full(0, 2, 8)), List.of(lp(0, "full", Map.of(), "identity")));
        KvLayoutProvider full = layout("full", false);
        try (LayerCaches caches = factory().create(p, null, 1)) {
            KvLayout next = full.create(PluginParams.empty(), new LayoutContext(null, 0, 2, null, null, 2));
            caches.replace(0, next);
            assertSame(next, caches.layer(0));
            assertEquals(1, made.get(0).closes);
        }
        assertEquals(1, made.get(1).closes);
    }
}
