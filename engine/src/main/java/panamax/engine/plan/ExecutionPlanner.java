package panamax.engine.plan;

import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SequencedSet;
import panamax.api.error.MemoryBudgetException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.ChosenPlugin;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.Refusal;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.engine.plugins.PluginKind;
import panamax.engine.plugins.PluginRegistry;

/**
 * Resolves {@link ExecutionRequirements} against the plugins' declared capabilities into an
 * immutable {@link ResolvedExecution}, recording why every refused option was refused. Reads only
 * declarations: nothing is instantiated. Thread-safe (holds immutable maps).
 *
 * {@snippet :
 * ExecutionPlanner planner = Wiring.planner(PluginRegistry.discover(Optional.empty()));
 * ResolvedExecution plan = planner.resolve(requirements);
 * }
 */
public final class ExecutionPlanner {
    /** Backends tried in this order when none is requested; the rest follow alphabetically. */
    public static final List<String> BACKEND_PREFERENCE = List.of("java", "mlx");

    private final Map<String, BackendProvider> backends;
    private final Map<String, KvCodecProvider> codecs;
    private final Map<String, KvLayoutProvider> layouts;
    private final PluginRegistry registry;

    @Inject
    public ExecutionPlanner(Map<String, BackendProvider> backends, Map<String, KvCodecProvider> codecs,
                            Map<String, KvLayoutProvider> layouts, PluginRegistry registry) {
        this.backends = Map.copyOf(backends);
        this.codecs = Map.copyOf(codecs);
        this.layouts = Map.copyOf(layouts);
        this.registry = registry;
    }

    /** {@link #resolve(ExecutionRequirements, List)} with no extra plugins. */
    public ResolvedExecution resolve(ExecutionRequirements requirements) {
        return resolve(requirements, List.of());
    }

    /**
     * Resolves the requirements.
     *
     * @param extraPlugins plugins chosen before planning (the model plugin), listed in the plan
     * @throws UnsupportedCombinationException listing every reason when no backend, codec or layout fits
     * @throws panamax.api.error.InvalidParameterException when a codec or layout parameter is not allowed
     * @throws MemoryBudgetException when an explicit context does not fit the memory budget
     */
    public ResolvedExecution resolve(ExecutionRequirements requirements, List<ChosenPlugin> extraPlugins) {
        SequencedSet<Refusal> refusals = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>(); // every stage is checked so one run reports all of them
        String backendId = chooseBackend(requirements, refusals);
        if (backendId == null) problems.add("no backend is available");
        String codecId = requirements.kv().codec();
        DType activations = requirements.model().activationType();
        CodecChoice codec = codec(codecId, requirements.kv().codecParams(), activations, refusals);
        if (codec == null) problems.add("codec '" + codecId + "' is not installed");
        CodecChoice identity = null;
        if (requirements.kv().quantizedStart().isPresent()) {
            identity = codec("identity", Map.of(), activations, refusals); // rows start in full precision
            if (identity == null) problems.add("--quantized-kv-start needs the identity codec, which is not installed");
        }
        List<LayerChoice> choices = new ArrayList<>();
        if (codec != null && (identity != null || requirements.kv().quantizedStart().isEmpty())) {
            LayerPlanner layerPlanner = new LayerPlanner(layouts, requirements.kv(), codec, identity, refusals);
            for (LayerKvNeed need : requirements.model().layers()) {
                Optional<LayerChoice> choice = layerPlanner.plan(need);
                if (choice.isEmpty()) {
                    problems.add("no layout can hold layer " + need.layer() + " with codec " + codecId);
                    break; // later layers would repeat the same refusals
                }
                choices.add(choice.get());
            }
        }
        if (!problems.isEmpty()) {
            throw new UnsupportedCombinationException("cannot resolve a plan: " + String.join("; ", problems),
                    refusals.stream().map(r -> r.option() + ": " + r.reason()).toList());
        }

        MemoryProjection memory = new MemoryProjection(choices);
        int rows = requirements.batchSize();
        long budget = requirements.memoryBudget();
        long maxContext = budget == 0 ? requirements.model().maxPositions() : memory.maxContext(budget, rows);
        long context = plannedContext(requirements, maxContext);
        long projected = memory.bytes(context, rows);
        if (budget > 0 && requirements.contextLength() > 0 && projected > budget) {
            throw new MemoryBudgetException("the KV cache of " + rows + " row(s) x " + context + " tokens (" + codecId
                    + "; at most " + maxContext + " tokens fit)", projected, budget);
        }

        List<LayerPlan> layers = choices.stream().map(c -> new LayerPlan(c.need().layer(), c.layoutId(), c.layoutParams(),
                codecId, codec.params(), c.need().hasDonor() ? 0 : c.bytesPerToken(), c.storedAt(context), c.reason() + lends(c.need().layer(), choices)))
                .toList();
        List<ChosenPlugin> plugins = new ArrayList<>();
        ChosenPlugin backend = chosen(PluginKind.BACKEND, backendId);
        plugins.add(backend);
        plugins.add(chosen(PluginKind.CODEC, codecId));
        if (identity != null && !codecId.equals("identity")) plugins.add(chosen(PluginKind.CODEC, "identity"));
        choices.stream().map(LayerChoice::layoutId).distinct().sorted().forEach(id -> plugins.add(chosen(PluginKind.LAYOUT, id)));
        plugins.addAll(extraPlugins);
        return new ResolvedExecution(requirements, backend, plugins, layers, memory.marginalBytesPerToken(context),
                projected, maxContext, List.copyOf(refusals));
    }

    /** {@code "; lends its KV to layers 20-23,25"} when later layers read {@code layer}'s cache, else empty. */
    private static String lends(int layer, List<LayerChoice> choices) {
        int[] borrowers = choices.stream().filter(c -> c.need().donor() == layer).mapToInt(c -> c.need().layer()).sorted().toArray();
        if (borrowers.length == 0) return "";
        return "; lends its KV to layer" + (borrowers.length == 1 ? " " : "s ") + LayerGroups.ranges(borrowers);
    }

    /**
     * The context a plan is projected at: the requested one, else the model's maximum, shortened to
     * what fits when a budget is given.
     */
    public static long plannedContext(ExecutionRequirements requirements, long maxContext) {
        if (requirements.contextLength() > 0) return requirements.contextLength();
        long max = requirements.model().maxPositions();
        return requirements.memoryBudget() > 0 ? Math.min(max, maxContext) : max;
    }

    /** The chosen backend id, or null after recording why each candidate was refused. */
    private String chooseBackend(ExecutionRequirements requirements, SequencedSet<Refusal> refusals) {
        List<String> order = new ArrayList<>();
        if (requirements.backend().isPresent()) {
            String wanted = requirements.backend().get();
            if (!backends.containsKey(wanted)) {
                refusals.add(new Refusal("backend " + wanted, "not installed: no backend plugin with id '" + wanted + "' was found (installed: "
                        + (backends.isEmpty() ? "none" : String.join(", ", sorted(backends.keySet()))) + ")"));
                return null;
            }
            order.add(wanted);
        } else {
            BACKEND_PREFERENCE.stream().filter(backends::containsKey).forEach(order::add);
            sorted(backends.keySet()).stream().filter(id -> !order.contains(id)).forEach(order::add);
        }
        // Every candidate is checked, so the plan lists each unavailable backend, not only those before the choice.
        String chosen = null;
        for (String id : order) {
            Optional<String> unavailable = unavailableReason(backends.get(id));
            DType dtype = requirements.model().activationType();
            if (unavailable.isPresent()) {
                refusals.add(new Refusal("backend " + id, unavailable.get()));
            } else if (!backends.get(id).capabilities().storageTypes().contains(dtype)) {
                refusals.add(new Refusal("backend " + id, "does not declare storage type " + dtype + ", which the model's activations use"));
            } else if (chosen == null) {
                chosen = id;
            }
        }
        if (order.isEmpty()) refusals.add(new Refusal("backend", "no backend plugin is installed"));
        return chosen;
    }

    private static Optional<String> unavailableReason(BackendProvider provider) {
        try {
            return provider.unavailableReason();
        } catch (RuntimeException | LinkageError e) {
            return Optional.of("its availability check failed: " + e);
        }
    }

    /**
     * The codec {@code id} with resolved params, or null (with a refusal) when it is not installed. A codec that declares a {@code dtype} parameter
     * (identity) stores the model's activation dtype unless the user chose one.
     */
    private CodecChoice codec(String id, Map<String, String> params, DType activations, SequencedSet<Refusal> refusals) {
        KvCodecProvider provider = codecs.get(id);
        if (provider == null) {
            refusals.add(new Refusal("codec " + id, "not installed: no codec plugin with id '" + id + "' was found"
                    + (codecs.isEmpty() ? " (no codec plugins are installed)" : " (installed: " + String.join(", ", sorted(codecs.keySet())) + ")")));
            return null;
        }
        Map<String, String> wanted = new java.util.HashMap<>(params);
        String dtype = activations.name().toLowerCase(java.util.Locale.ROOT);
        provider.capabilities().params().stream()
                .filter(spec -> spec.name().equals("dtype") && (spec.allowed().isEmpty() || spec.allowed().contains(dtype)))
                .findFirst().ifPresent(spec -> wanted.putIfAbsent("dtype", dtype));
        PluginParams resolved = PluginParams.of(wanted).resolve(id, provider.capabilities().params());
        return new CodecChoice(id, provider, resolved, activations);
    }

    private ChosenPlugin chosen(PluginKind kind, String id) {
        return registry.find(kind, id).map(p -> p.toChosen())
                .orElse(new ChosenPlugin(kind.label(), id, "unknown", "unknown"));
    }

    private static List<String> sorted(java.util.Collection<String> ids) {
        return ids.stream().sorted(Comparator.naturalOrder()).toList();
    }
}
