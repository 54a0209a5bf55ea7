package panamax.engine.runtime;

import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayout;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.engine.plugins.PluginRegistry;

/**
 * Instantiates the KV cache a {@link ResolvedExecution} describes: for every planned layer, its
 * codec and layout through the providers the plan names. Holds only provider maps, so it is
 * stateless and thread-safe; each {@link #create} result is owned by its caller.
 *
 * {@snippet :
 * KvStateFactory factory = KvStateFactory.of(registry);
 * try (LayerCaches caches = factory.create(plan, backend, 1)) {
 *     Tensor hidden = model.graph().forwardHidden(ids, caches);
 * }
 * }
 */
public final class KvStateFactory {
    /** Seed codecs draw their random transforms from unless the caller gives one. */
    public static final long DEFAULT_SEED = 0x9E3779B97F4A7C15L;

    private final Map<String, KvCodecProvider> codecs;
    private final Map<String, KvLayoutProvider> layouts;

    @Inject
    public KvStateFactory(Map<String, KvCodecProvider> codecs, Map<String, KvLayoutProvider> layouts) {
        this.codecs = Map.copyOf(codecs);
        this.layouts = Map.copyOf(layouts);
    }

    /** A factory over the codecs and layouts of {@code registry} (the first provider of a duplicated id). */
    public static KvStateFactory of(PluginRegistry registry) {
        Map<String, KvCodecProvider> c = new HashMap<>();
        registry.codecs().forEach(p -> c.putIfAbsent(p.id(), p.provider()));
        Map<String, KvLayoutProvider> l = new HashMap<>();
        registry.layouts().forEach(p -> l.putIfAbsent(p.id(), p.provider()));
        return new KvStateFactory(c, l);
    }

    /** {@link #create(ResolvedExecution, Backend, int, long)} with {@link #DEFAULT_SEED}. */
    public LayerCaches create(ResolvedExecution plan, Backend backend, int rows) {
        return create(plan, backend, rows, DEFAULT_SEED);
    }

    /**
     * A new cache of {@code rows} rows per the plan, on {@code backend} (borrowed). A layer whose
     * need names a donor shares the donor's layout instead of getting its own.
     *
     * @throws UnsupportedCombinationException when the plan names a codec or layout this factory does not have
     */
    public LayerCaches create(ResolvedExecution plan, Backend backend, int rows, long seed) {
        List<LayerKvNeed> needs = plan.requirements().model().layers();
        DType activations = plan.requirements().model().activationType();
        if (needs.size() != plan.layers().size()) {
            throw new IllegalArgumentException("plan has " + plan.layers().size() + " layer plans for a model of "
                    + needs.size() + " attention layers");
        }
        List<KvLayout> created = new ArrayList<>();
        KvLayout[] perLayer = new KvLayout[needs.size()];
        try {
            for (int i = 0; i < needs.size(); i++) {
                LayerKvNeed need = needs.get(i);
                if (need.hasDonor()) {
                    if (need.donor() >= i) throw new IllegalArgumentException("layer " + i + " names donor " + need.donor() + ", not an earlier layer");
                    perLayer[i] = perLayer[need.donor()];
                    continue;
                }
                perLayer[i] = layout(plan.layers().get(i), need, backend, rows, activations, seed);
                created.add(perLayer[i]);
            }
        } catch (RuntimeException e) {
            created.forEach(KvLayout::close);
            throw e;
        }
        return new LayerCaches(perLayer);
    }

    private KvLayout layout(LayerPlan lp, LayerKvNeed need, Backend backend, int rows, DType activations, long seed) {
        KvLayoutProvider layoutProvider = provider(layouts, "layout", lp.layout());
        CodecContext codecContext = new CodecContext(backend, lp.layer(), need.kvHeads(), need.headDim(), activations, seed);
        KvCodec codec = provider(codecs, "codec", lp.codec()).create(lp.codecParams(), codecContext);
        KvCodec identity = null;
        try {
            if (layoutProvider.capabilities().convertsCodec()) {
                KvCodecProvider id = provider(codecs, "codec", "identity");
                identity = id.create(identityParams(id, activations), codecContext);
            }
            return layoutProvider.create(lp.layoutParams(), new LayoutContext(backend, lp.layer(), rows, codec, identity, need.kvHeads()));
        } catch (RuntimeException e) {
            codec.close();
            if (identity != null) identity.close();
            throw e;
        }
    }

    /** The identity codec stores the activation dtype, as the planner projected it. */
    private static PluginParams identityParams(KvCodecProvider identity, DType activations) {
        String dtype = activations.name().toLowerCase(Locale.ROOT);
        Map<String, String> wanted = new HashMap<>();
        for (ParamSpec spec : identity.capabilities().params()) {
            if (spec.name().equals("dtype") && (spec.allowed().isEmpty() || spec.allowed().contains(dtype))) wanted.put("dtype", dtype);
        }
        return PluginParams.of(wanted).resolve(identity.id(), identity.capabilities().params());
    }

    private static <T> T provider(Map<String, T> byId, String kind, String id) {
        T p = byId.get(id);
        if (p == null) {
            throw new UnsupportedCombinationException("the plan uses " + kind + " '" + id + "', which is not installed",
                    List.of("installed " + kind + "s: " + (byId.isEmpty() ? "none" : String.join(", ", byId.keySet().stream().sorted().toList()))));
        }
        return p;
    }
}
