package panamax.engine.generate;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.LogitSelection;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.TokenizerProvider;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.engine.plan.ModelResolver;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.runtime.LayerCaches;
import panamax.engine.wiring.Engine;

/**
 * A model directory made ready to generate: the model plugin picked by {@code config.json}, the
 * planned backend, the loaded weights, the tokenizer, and a {@link Generator} whose KV caches are
 * planned and built per call under the given KV scheme. Owns the backend, model and tokenizer;
 * closing releases them. Not thread-safe.
 *
 * {@snippet :
 * try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), dir,
 *         KvScheme.identity(), Optional.empty())) {
 *     GenerationOutput out = session.generator().generate(request, GenerationListener.NONE);
 * }
 * }
 */
public final class ModelSession implements AutoCloseable {
    /** Prompt columns per prefill forward pass. */
    public static final int DEFAULT_PREFILL_CHUNK = 512;

    private final Engine engine;
    private final ModelSpec spec;
    private final String pluginId;
    private final KvScheme kv;
    private final Backend backend;
    private final RuntimeModel model;
    private final Tokenizer tokenizer;
    private final KvStateFactory factory;
    private final int prefillChunk;
    private final Optional<ToolCallFormat> toolCallFormat;
    /**
     * Plans already resolved, by rows and context: a server resolves one for every request it admits (its KV
     * projection, then its caches), 0.3–0.6 ms each on the demo model, and the answer depends on nothing else.
     */
    private final Map<PlanKey, ResolvedExecution> plans = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<PlanKey, ResolvedExecution> eldest) {
                    return size() > 256;
                }
            });

    private record PlanKey(int rows, long context) {
    }

    private ModelSession(Engine engine, ModelResolver resolved, KvScheme kv, Backend backend, RuntimeModel model,
                         Tokenizer tokenizer, int prefillChunk, Optional<ToolCallFormat> toolCallFormat) {
        this.engine = engine;
        this.spec = resolved.spec();
        this.pluginId = resolved.plugin();
        this.kv = kv;
        this.backend = backend;
        this.model = model;
        this.tokenizer = tokenizer;
        this.factory = KvStateFactory.of(engine.registry());
        this.prefillChunk = prefillChunk;
        this.toolCallFormat = toolCallFormat;
    }

    /** {@link #open(PluginRegistry, Path, KvScheme, Optional, int, java.util.function.Consumer)} without progress. */
    public static ModelSession open(PluginRegistry registry, Path directory, KvScheme kv, Optional<String> backendId) {
        return open(registry, directory, kv, backendId, DEFAULT_PREFILL_CHUNK, message -> { });
    }

    /**
     * Resolves, loads and wires the model in {@code directory}.
     *
     * @param backendId a backend id, or empty for the planner's choice
     * @param progress  receives one line per loading stage, for people
     * @throws panamax.api.error.BadModelFileException when a model or tokenizer file is malformed
     * @throws UnsupportedCombinationException when no plugin reads the model, no tokenizer provider
     *         reads the directory, or no plan fits the KV scheme
     */
    public static ModelSession open(PluginRegistry registry, Path directory, KvScheme kv, Optional<String> backendId,
                                    int prefillChunk, java.util.function.Consumer<String> progress) {
        return open(registry, directory, kv, backendId, prefillChunk, progress, LoadOptions.defaults());
    }

    /**
     * As {@link #open(PluginRegistry, Path, KvScheme, Optional, int, java.util.function.Consumer)},
     * with the weights placed and their loading reported as {@code load} says (plugins that do not
     * override {@link ModelPlugin#load(Path, Backend, LoadOptions)} ignore it).
     */
    public static ModelSession open(PluginRegistry registry, Path directory, KvScheme kv, Optional<String> backendId,
                                    int prefillChunk, java.util.function.Consumer<String> progress, LoadOptions load) {
        Engine engine = Engine.start(registry);
        ModelResolver resolved = ModelResolver.resolve(directory, engine.models());
        ModelPlugin plugin = engine.models().get(resolved.plugin());
        ResolvedExecution plan = plan(engine, resolved.spec(), kv, backendId, 1, 0);
        String backendChoice = plan.backend().id();
        BackendProvider provider = registry.backends().stream().filter(p -> p.id().equals(backendChoice)).findFirst()
                .orElseThrow(() -> new UnsupportedCombinationException("backend '" + backendChoice + "' is not installed",
                        List.of("installed backends: " + registry.backends().stream().map(p -> p.id()).toList())))
                .provider();
        Tokenizer tokenizer = loadTokenizer(directory);
        Backend backend = null;
        RuntimeModel model = null;
        try {
            progress.accept("backend " + backendChoice + ", model plugin " + resolved.plugin() + ", "
                    + resolved.spec().layers().size() + " layers, vocabulary " + resolved.spec().vocabSize());
            long start = System.nanoTime();
            backend = provider.create(BackendOptions.defaults());
            model = plugin.load(directory, backend, load);
            progress.accept(String.format(java.util.Locale.ROOT, "loaded %s in %.2f s", directory.getFileName(),
                    (System.nanoTime() - start) / 1e9));
            return new ModelSession(engine, resolved, kv, backend, model, tokenizer, prefillChunk, plugin.toolCallFormat(directory));
        } catch (RuntimeException e) {
            if (model != null) model.close();
            if (backend != null) backend.close();
            tokenizer.close();
            throw e;
        }
    }

    /** The first installed tokenizer provider that reads {@code directory}. */
    public static Tokenizer loadTokenizer(Path directory) {
        for (TokenizerProvider provider : ServiceLoader.load(TokenizerProvider.class)) {
            if (provider.canLoad(directory)) return provider.load(directory);
        }
        throw new UnsupportedCombinationException("no tokenizer for " + directory,
                List.of("no installed tokenizer provider reads this directory (a Hugging Face model needs tokenizer.json"
                        + " and the panamax.models module)"));
    }

    private static ResolvedExecution plan(Engine engine, ModelSpec spec, KvScheme kv, Optional<String> backendId, int rows, long context) {
        return engine.planner().resolve(new ExecutionRequirements(spec, backendId, kv, Batching.SERIAL, Method.AUTOREGRESSIVE,
                rows, context, 0, false));
    }

    /** The plan a call of {@code rows} rows and {@code context} tokens per row runs. */
    public ResolvedExecution plan(int rows, long context) {
        return plans.computeIfAbsent(new PlanKey(rows, context), k -> plan(engine, spec, kv, Optional.of(backend.name()), rows, context));
    }

    /**
     * A new, empty KV cache of {@code rows} rows planned for {@code context} tokens per row (0: the
     * model's maximum), under this session's KV scheme; owned by the caller.
     */
    public LayerCaches openCaches(int rows, long context) {
        return factory.create(plan(rows, context), backend, rows);
    }

    /**
     * The declared capabilities of the layout plugin {@code id}.
     *
     * @throws UnsupportedCombinationException when no installed layout has that id
     */
    public panamax.api.kv.LayoutCapabilities layoutCapabilities(String id) {
        return engine.registry().layout(id).map(p -> p.capabilities())
                .orElseThrow(() -> new UnsupportedCombinationException("layout '" + id + "' is not installed", List.of()));
    }

    /** The loaded model's forward graph; borrowed from this session. */
    public panamax.api.model.AutoregressiveGraph graph() {
        return model.graph();
    }

    /** A generator over this session's model, tokenizer and KV scheme. */
    public Generator generator() {
        return new Generator(model.graph(), backend,
                (rows, context) -> KvSession.of(factory.create(plan(rows, context), backend, rows)), tokenizer, prefillChunk);
    }

    /**
     * Logits {@code [ids.length, vocab]} (row-major, f32) of one row scored in a single forward pass
     * over a fresh KV cache: what perplexity and other scoring need.
     */
    public float[] scoreLogits(int[] ids) {
        if (ids.length == 0) throw new IllegalArgumentException("ids: expected at least one token, found none");
        try (LayerCaches caches = factory.create(plan(1, ids.length), backend, 1);
             Tensor in = backend.fromInts(ids, Shape.of(1, ids.length), DType.I32);
             Tensor hidden = model.graph().forwardHidden(in, caches);
             Tensor logits = model.graph().projectLogits(hidden, LogitSelection.ALL)) {
            return backend.toFloats(logits);
        }
    }

    /** A generator for one row that keeps its KV cache between calls (chat turns); owned by the caller. */
    public PrefixCache prefixCache() {
        return new PrefixCache(generator(), 0);
    }

    public Tokenizer tokenizer() {
        return tokenizer;
    }

    public ModelSpec spec() {
        return spec;
    }

    /** How the model writes tool calls, as its plugin declares; empty when its chat template takes no tools. */
    public Optional<ToolCallFormat> toolCallFormat() {
        return toolCallFormat;
    }

    /** The id of the model plugin that loaded the model. */
    public String pluginId() {
        return pluginId;
    }

    public Backend backend() {
        return backend;
    }

    @Override
    public void close() {
        try {
            model.close();
            tokenizer.close();
        } finally {
            backend.close();
        }
    }
}
