package panamax.engine.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SequencedSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import panamax.api.error.InvalidParameterException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.LayoutCapabilities;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Refusal;

/**
 * Chooses each layer's layout from the layouts' declared capabilities alone: a bounded layout with
 * a {@code window} for sliding-window layers and {@code --max-kv-size}, an unbounded one otherwise,
 * and a codec-converting host around it for {@code --quantized-kv-start}. Every candidate refused
 * is recorded with the capability or parameter that was missing.
 */
final class LayerPlanner {
    /** mlx-lm keeps the first four tokens (attention sinks) when {@code --max-kv-size} bounds the cache. */
    static final int MAX_KV_SIZE_KEEP = 4;

    private final Map<String, KvLayoutProvider> layouts;
    private final KvScheme kv;
    private final CodecChoice codec;
    private final CodecChoice identity;
    private final SequencedSet<Refusal> refusals;

    /** The storage a layer wants before it is matched to a plugin. */
    private record Storage(String preferred, Map<String, String> params, boolean bounded, String reason) {
    }

    LayerPlanner(Map<String, KvLayoutProvider> layouts, KvScheme kv, CodecChoice codec, CodecChoice identity,
                 SequencedSet<Refusal> refusals) {
        this.layouts = layouts;
        this.kv = kv;
        this.codec = codec;
        this.identity = identity;
        this.refusals = refusals;
    }

    /**
     * The layout of one layer, or empty when every candidate was refused (the refusals say why).
     *
     * @throws UnsupportedCombinationException naming the layer when the codec cannot encode its head dimension
     */
    Optional<LayerChoice> plan(LayerKvNeed need) {
        Storage storage = storageFor(need);
        long bytes = codec.bytesPerToken(need);
        boolean delayed = kv.quantizedStart().isPresent();
        Predicate<LayoutCapabilities> fits = delayed ? LayoutCapabilities::convertsCodec
                : caps -> caps.bounded() == storage.bounded() && !caps.convertsCodec();
        String preferred = delayed ? "delayed" : storage.preferred();
        for (String id : candidates(preferred, fits)) {
            Optional<PluginParams> params = delayed ? hostParams(id, storage) : storageParams(id, storage);
            if (params.isPresent()) {
                String reason = need.hasDonor() ? "reads layer " + need.donor() + "'s cache" : storage.reason();
                if (!delayed) return Optional.of(new LayerChoice(need, id, layouts.get(id), params.get(), bytes, bytes, -1, reason));
                long start = kv.quantizedStart().getAsInt();
                return Optional.of(new LayerChoice(need, id, layouts.get(id), params.get(), bytes, identity.bytesPerToken(need), start,
                        "--quantized-kv-start " + start + " over " + storage.reason()));
            }
        }
        return Optional.empty();
    }

    private Storage storageFor(LayerKvNeed need) {
        String forced = kv.layout().orElse(null);
        if (kv.maxKvSize().isPresent() && (!need.isSliding() || need.window() > kv.maxKvSize().getAsInt())) {
            int n = kv.maxKvSize().getAsInt();
            return new Storage(forced == null ? "rotating" : forced,
                    Map.of("window", Integer.toString(n), "keep", Integer.toString(MAX_KV_SIZE_KEEP)), true,
                    "--max-kv-size " + n + ", keeps the first " + MAX_KV_SIZE_KEEP);
        }
        if (need.isSliding()) {
            return new Storage(forced == null ? "rotating" : forced,
                    Map.of("window", Integer.toString(need.window()), "keep", "0"), true, "sliding window " + need.window());
        }
        return new Storage(forced == null ? "full" : forced, Map.of(), false, "full attention");
    }

    /** The preferred id first, then every other layout that fits, alphabetically; a forced layout alone. */
    private List<String> candidates(String preferred, Predicate<LayoutCapabilities> fits) {
        List<String> ids = new ArrayList<>();
        if (layouts.containsKey(preferred)) {
            ids.add(preferred);
        } else {
            refuse("layout " + preferred, "not installed: no layout plugin with id '" + preferred + "' was found"
                    + (layouts.isEmpty() ? " (no layout plugins are installed)" : " (installed: " + String.join(", ", layouts.keySet().stream().sorted().toList()) + ")"));
        }
        if (kv.layout().isPresent() && kv.quantizedStart().isEmpty()) return ids;
        layouts.keySet().stream().sorted()
                .filter(id -> !id.equals(preferred) && fits.test(layouts.get(id).capabilities()))
                .forEach(ids::add);
        return ids;
    }

    private Optional<PluginParams> storageParams(String id, Storage storage) {
        LayoutCapabilities caps = layouts.get(id).capabilities();
        if (storage.bounded() && !caps.bounded()) {
            return refuse("layout " + id, "does not declare bounded, needed for " + storage.reason());
        }
        return checked(id, caps, storage.params(), storage.reason());
    }

    /** Params of a converting host: {@code start}, the wrapped storage (when it declares a {@code storage} param) and the storage's params. */
    private Optional<PluginParams> hostParams(String id, Storage storage) {
        LayoutCapabilities caps = layouts.get(id).capabilities();
        if (!caps.convertsCodec()) {
            return refuse("layout " + id, "does not declare convertsCodec, needed for --quantized-kv-start");
        }
        Map<String, String> wanted = new LinkedHashMap<>(storage.params());
        wanted.put("start", Integer.toString(kv.quantizedStart().getAsInt()));
        if (declared(caps).contains("storage")) wanted.put("storage", storage.preferred());
        return checked(id, caps, wanted, "--quantized-kv-start over " + storage.reason());
    }

    private Optional<PluginParams> checked(String id, LayoutCapabilities caps, Map<String, String> wanted, String purpose) {
        Set<String> declared = declared(caps);
        for (String name : wanted.keySet()) {
            if (!declared.contains(name)) {
                return refuse("layout " + id, "declares no '" + name + "' parameter, needed for " + purpose);
            }
        }
        if (codec.capabilities().rotatedValues() && !caps.hostsRotatedValues()) {
            return refuse("layout " + id + " for codec " + codec.id(), "codec " + codec.id()
                    + " stores values rotated (rotatedValues) and layout " + id + " does not declare hostsRotatedValues");
        }
        try {
            return Optional.of(PluginParams.of(wanted).resolve(id, caps.params()));
        } catch (InvalidParameterException e) {
            return refuse("layout " + id, e.getMessage());
        }
    }

    private static Set<String> declared(LayoutCapabilities caps) {
        return caps.params().stream().map(ParamSpec::name).collect(Collectors.toSet());
    }

    private <T> Optional<T> refuse(String option, String reason) {
        refusals.add(new Refusal(option, reason));
        return Optional.empty();
    }
}
