package panamax.app.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.error.InvalidParameterException;
import panamax.api.model.ModelSpec;
import panamax.api.plan.Batching;
import panamax.api.plan.ChosenPlugin;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.plan.ResolvedExecution;
import panamax.engine.plan.ByteSize;
import panamax.engine.plan.ModelResolver;
import panamax.engine.plan.PlanJson;
import panamax.engine.plan.PlanText;
import panamax.engine.plan.Presets;
import panamax.engine.serve.ServingConfig;
import panamax.engine.serve.ServingPlan;
import panamax.engine.plugins.PluginKind;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.wiring.Engine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code panamax plan}: resolves the given options against the discovered plugins and prints the plan. */
@Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Resolve a backend, a KV codec and a layout for every layer of a model, and print the plan with its memory projection.")
public final class PlanCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    PluginsDirOption plugins;

    @Mixin
    KvFlags kv;

    @Option(names = "--backend", paramLabel = "ID", description = "backend id (default: the first available of java, mlx, others)")
    String backend;

    @Option(names = "--model", paramLabel = "DIR", description = "a Hugging Face model directory; its config.json model_type picks the model plugin")
    Path model;

    @Option(names = "--preset", paramLabel = "NAME", description = "plan for a built-in model shape instead of --model: 1b (default), 8b, gemma3-1b, qwen3-30b-a3b")
    String preset;

    @Option(names = "--context", paramLabel = "TOKENS", description = "tokens per row to plan for (default: the model's maximum, or what fits --memory-budget)")
    Long context;

    @Option(names = "--batch", paramLabel = "ROWS", description = "rows decoded together (default 1; with --serve, the server's --max-batch, default 8)")
    Integer batchOption;

    @Option(names = "--serve", description = "also print the serving decisions of 'panamax serve' for this plan: continuous or serial batching,"
            + " prefix reuse and admission, each with its reason")
    boolean serve;

    @Option(names = "--memory-budget", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "bytes the KV cache may take, e.g. 8GiB, 512MiB or a byte count")
    Long memoryBudget;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    /** Parses {@code --memory-budget} values. */
    static final class SizeConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            try {
                return ByteSize.parse("--memory-budget", value);
            } catch (InvalidParameterException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    @Override
    public void run() {
        if (model != null && preset != null) throw usage("--model and --preset exclude each other: plan for a model directory or for a preset");
        int batch = batchOption != null ? batchOption : serve ? ServingConfig.defaults().maxBatch() : 1;
        if (batch < 1) throw usage("--batch must be at least 1, found " + batch);
        if (context != null && context < 1) throw usage("--context must be at least 1 token, found " + context);
        KvScheme scheme;
        try {
            scheme = kv.scheme();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        PluginRegistry registry = PluginRegistry.discover(plugins.resolve());
        Engine engine = Engine.start(registry);
        List<ChosenPlugin> extra = new ArrayList<>();
        ModelSpec modelSpec;
        String source;
        if (model != null) {
            ModelResolver resolved = ModelResolver.resolve(model, engine.models());
            modelSpec = resolved.spec();
            source = "model directory " + model.toAbsolutePath().normalize() + ", read by model plugin " + resolved.plugin();
            registry.find(PluginKind.MODEL, resolved.plugin()).ifPresent(p -> extra.add(p.toChosen()));
        } else {
            String name = preset == null ? Presets.DEFAULT : preset;
            modelSpec = Presets.get(name);
            source = "built-in preset '" + name + "' (a model shape, no weights; pass --model DIR to plan for a real model)";
        }
        ExecutionRequirements requirements = new ExecutionRequirements(modelSpec, Optional.ofNullable(backend), scheme,
                serve ? Batching.CONTINUOUS : Batching.SERIAL,
                Method.AUTOREGRESSIVE, batch, context == null ? 0 : context, memoryBudget == null ? 0 : memoryBudget, false);
        ResolvedExecution plan = engine.planner().resolve(requirements, extra);
        PrintWriter out = spec.commandLine().getOut();
        if (!serve) {
            out.print(json ? PlanJson.render(plan, source) : PlanText.render(plan, source));
        } else {
            ServingConfig config = ServingConfig.defaults().withMaxBatch(batch)
                    .withMemoryBudget(memoryBudget == null ? ServingConfig.DEFAULT_MEMORY_BUDGET : memoryBudget);
            ServingPlan serving = ServingPlan.resolve(plan, id -> registry.layout(id).map(p -> p.capabilities())
                    .orElseThrow(() -> new IllegalStateException("the plan names layout '" + id + "', which is not installed")), config);
            if (json) {
                com.fasterxml.jackson.databind.node.ObjectNode tree = PlanJson.tree(plan, source);
                tree.set("serving", PlanJson.mapper().valueToTree(serving.toMap()));
                out.print(PlanJson.write(tree));
            } else {
                out.print(PlanText.render(plan, source));
                out.println("serving (panamax serve):");
                serving.describe().forEach(line -> out.println("  " + line));
            }
        }
        out.flush();
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
