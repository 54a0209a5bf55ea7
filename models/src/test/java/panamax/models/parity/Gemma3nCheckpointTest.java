package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.model.LoadOptions;
import panamax.api.model.LogitSelection;
import panamax.api.model.ModelPlugin;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.runtime.LayerCaches;
import panamax.engine.wiring.Engine;
import panamax.model.support.weights.SafetensorsWriter;

/**
 * Gemma 3n checkpoints other than the plain text one, built from {@code gemma3n-tiny}'s tensors: a
 * multimodal {@code gemma3n} checkpoint runs its text tower alone (same logits), and
 * {@code altup_coef_clip} clamps AltUp's correction coefficients.
 */
class Gemma3nCheckpointTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int[] PROMPT = {17, 300, 41, 9, 222, 5, 87, 150, 61, 480, 33, 7};
    private static PluginRegistry registry;
    private static Engine engine;
    private static ModelPlugin plugin;
    private static Backend backend;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() {
        registry = PluginRegistry.discover(Optional.empty());
        engine = Engine.start(registry);
        plugin = registry.models().stream().filter(p -> p.id().equals("gemma3n")).findFirst().orElseThrow().provider();
        backend = registry.backends().stream().filter(p -> p.id().equals(FixtureParityTest.backend())).findFirst().orElseThrow()
                .provider().create(BackendOptions.defaults());
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    /** Prefill logits of {@link #PROMPT} at every position. */
    private static float[] logits(Path dir) {
        try (RuntimeModel model = plugin.load(dir, backend, LoadOptions.defaults());
             LayerCaches caches = KvStateFactory.of(registry).create(engine.planner().resolve(new ExecutionRequirements(model.spec(),
                     Optional.of(backend.name()), KvScheme.identity(), Batching.SERIAL, Method.AUTOREGRESSIVE, 1, 64, 0, false)), backend, 1);
             Tensor ids = backend.fromInts(PROMPT, Shape.of(1, PROMPT.length), DType.I32);
             Tensor hidden = model.graph().forwardHidden(ids, caches);
             Tensor logits = model.graph().projectLogits(hidden, LogitSelection.ALL)) {
            return backend.toFloats(logits);
        }
    }

    /** {@code from}'s tensors under new names, plus {@code extra} f32 tensors, written to {@code to}. */
    private static void rewrite(Path from, Path to, UnaryOperator<String> rename, Map<String, int[]> extra) throws IOException {
        byte[] file = Files.readAllBytes(from);
        int headerLength = (int) ByteBuffer.wrap(file, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        JsonNode header = JSON.readTree(new String(file, 8, headerLength, StandardCharsets.UTF_8));
        SafetensorsWriter out = new SafetensorsWriter();
        for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equals("__metadata__")) continue;
            JsonNode t = e.getValue();
            int[] shape = new int[t.get("shape").size()];
            for (int i = 0; i < shape.length; i++) shape[i] = t.get("shape").get(i).intValue();
            int start = 8 + headerLength + t.get("data_offsets").get(0).intValue(), end = 8 + headerLength + t.get("data_offsets").get(1).intValue();
            out.add(rename.apply(e.getKey()), t.get("dtype").asText(), shape, Arrays.copyOfRange(file, start, end));
        }
        extra.forEach((name, shape) -> out.f32(name, shape, new float[Arrays.stream(shape).reduce(1, (a, b) -> a * b)]));
        out.write(to);
    }

    private static ObjectNode fixtureConfig() throws IOException {
        return (ObjectNode) JSON.readTree(Gemma3nParityTest.fixture().resolve("config.json").toFile());
    }

    @Test
    void aMultimodalCheckpointRunsItsTextTowerAloneWithTheSameLogits() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("gemma3n-multimodal"));
        ObjectNode config = JSON.createObjectNode();
        config.put("model_type", "gemma3n");
        config.putArray("architectures").add("Gemma3nForConditionalGeneration");
        config.set("text_config", fixtureConfig());
        config.putObject("vision_config").put("model_type", "gemma3n_vision").put("hidden_size", 8);
        config.putObject("audio_config").put("model_type", "gemma3n_audio").put("hidden_size", 8);
        Files.writeString(dir.resolve("config.json"), config.toPrettyString());
        rewrite(Gemma3nParityTest.fixture().resolve("model.safetensors"), dir.resolve("model.safetensors"),
                name -> name.replaceFirst("^model\\.", "model.language_model."),
                Map.of("model.vision_tower.timm_model.conv_stem.conv.weight", new int[]{8, 3}, "model.embed_audio.embedding.weight", new int[]{4, 8}));
        assertArrayEquals(logits(Gemma3nParityTest.fixture()), logits(dir));
        String name = plugin.describe(dir).name();
        assertTrue(name.endsWith("[text only: vision and audio towers not loaded]"), name);
    }

    @Test
    void altupCoefClipClampsTheCorrectionCoefficients() throws IOException {
        float[] stored = logits(Gemma3nParityTest.fixture());
        for (double clip : new double[]{1e9, 0.05}) {
            Path dir = Files.createDirectories(tmp.resolve("clip-" + clip));
            Files.copy(Gemma3nParityTest.fixture().resolve("model.safetensors"), dir.resolve("model.safetensors"));
            Files.writeString(dir.resolve("config.json"), fixtureConfig().put("altup_coef_clip", clip).toPrettyString());
            float[] clipped = logits(dir);
            double moved = 0;
            for (int i = 0; i < stored.length; i++) moved = Math.max(moved, Math.abs(stored[i] - clipped[i]));
            // the fixture's coefficients are all within ±1e9 and many beyond ±0.05
            if (clip > 1) assertTrue(moved == 0, "a clip above every coefficient changes nothing, moved " + moved);
            else assertTrue(moved > 1e-3, "clamping the coefficients to ±" + clip + " moved the logits by only " + moved);
        }
    }
}
