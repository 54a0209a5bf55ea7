package panamax.engine.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Locale;
import panamax.api.kv.PluginParams;
import panamax.api.model.ModelSpec;
import panamax.api.plan.ChosenPlugin;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.Refusal;
import panamax.api.plan.ResolvedExecution;

/**
 * Renders a {@link ResolvedExecution} as one JSON document for machines. Field names are stable;
 * see {@code docs/planner.md}. Sizes are exact byte counts; {@code maxContext} is {@code null}
 * when {@code maxContextUnbounded} is true.
 */
public final class PlanJson {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PlanJson() {
    }

    /** The plan as a JSON object. */
    public static ObjectNode tree(ResolvedExecution plan, String modelSource) {
        ExecutionRequirements req = plan.requirements();
        ModelSpec model = req.model();
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode m = root.putObject("model");
        m.put("name", model.name());
        m.put("architecture", model.architecture());
        m.put("source", modelSource);
        m.put("layers", model.layers().size());
        m.put("activationType", model.activationType().name());
        m.put("maxPositions", model.maxPositions());
        m.put("weightBytes", model.weightBytes());
        ObjectNode params = m.putObject("parameters");
        params.put("total", model.parameters().total());
        params.put("activePerToken", model.parameters().activePerToken());
        params.put("activeWeightBytes", model.parameters().activeWeightBytes());
        root.set("backend", plugin(plan.backend()));
        ObjectNode mechanism = root.putObject("mechanism");
        mechanism.put("method", req.method().name().toLowerCase(Locale.ROOT));
        mechanism.put("batching", req.batching().name().toLowerCase(Locale.ROOT));
        mechanism.put("batchSize", req.batchSize());
        mechanism.put("logprobs", req.logprobs());
        ObjectNode kv = root.putObject("kv");
        kv.put("codec", req.kv().codec());
        kv.set("codecParams", params(plan.layers().isEmpty() ? PluginParams.of(req.kv().codecParams()) : plan.layers().getFirst().codecParams()));
        if (req.kv().quantizedStart().isPresent()) kv.put("quantizedKvStart", req.kv().quantizedStart().getAsInt());
        else kv.putNull("quantizedKvStart");
        if (req.kv().maxKvSize().isPresent()) kv.put("maxKvSize", req.kv().maxKvSize().getAsInt());
        else kv.putNull("maxKvSize");
        root.put("contextLength", ExecutionPlanner.plannedContext(req, plan.maxContext()));
        root.put("memoryBudget", req.memoryBudget());
        ArrayNode layers = root.putArray("layers");
        for (LayerPlan p : plan.layers()) {
            ObjectNode l = layers.addObject();
            l.put("layer", p.layer());
            l.put("layout", p.layout());
            l.set("layoutParams", params(p.layoutParams()));
            l.put("codec", p.codec());
            l.set("codecParams", params(p.codecParams()));
            l.put("bytesPerToken", p.bytesPerToken());
            l.put("storedTokens", p.storedTokens());
            l.put("reason", p.reason());
            LayerKvNeed need = req.model().layers().get(p.layer());
            if (need.hasDonor()) l.put("kvDonor", need.donor());
            else l.putNull("kvDonor");
        }
        root.put("kvSharingSavedBytes", KvSharing.of(plan).savedBytes());
        root.put("kvBytesPerToken", plan.kvBytesPerToken());
        root.put("projectedKvBytes", plan.projectedKvBytes());
        boolean unbounded = plan.maxContext() == MemoryProjection.UNBOUNDED;
        if (unbounded) root.putNull("maxContext");
        else root.put("maxContext", plan.maxContext());
        root.put("maxContextUnbounded", unbounded);
        ArrayNode plugins = root.putArray("plugins");
        plan.plugins().forEach(p -> plugins.add(plugin(p)));
        ArrayNode refusals = root.putArray("refusals");
        for (Refusal r : plan.refusals()) {
            ObjectNode o = refusals.addObject();
            o.put("option", r.option());
            o.put("reason", r.reason());
        }
        return root;
    }

    /** The plan as indented JSON text. */
    public static String render(ResolvedExecution plan, String modelSource) {
        return write(tree(plan, modelSource));
    }

    /** Indented JSON text of any tree built with {@link #mapper()}. */
    public static String write(ObjectNode tree) {
        try {
            return MAPPER.writeValueAsString(tree) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The mapper whose nodes {@link #write} accepts. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    private static ObjectNode plugin(ChosenPlugin p) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("kind", p.kind());
        o.put("id", p.id());
        o.put("module", p.module());
        o.put("origin", p.origin());
        return o;
    }

    private static ObjectNode params(PluginParams params) {
        ObjectNode o = MAPPER.createObjectNode();
        params.values().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey()).forEach(e -> o.put(e.getKey(), e.getValue()));
        return o;
    }
}
