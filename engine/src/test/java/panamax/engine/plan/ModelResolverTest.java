package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;

class ModelResolverTest {
    /** Describes any directory as a two-layer model named after it; never loads. */
    record Family(String id, Set<String> modelTypes) implements ModelPlugin {
        public ModelSpec describe(Path directory) {
            return new ModelSpec(directory.getFileName().toString(), modelTypes.iterator().next(),
                    List.of(LayerKvNeed.full(0, 2, 64), LayerKvNeed.full(1, 2, 64)), DType.F32, 0, 100, 2048);
        }

        public RuntimeModel load(Path directory, Backend backend) {
            throw new UnsupportedOperationException("planning never loads weights");
        }
    }

    private static Path model(Path dir, String config) throws IOException {
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }

    @Test
    void theModelTypeInConfigJsonPicksThePluginThatDeclaresIt(@TempDir Path dir) throws IOException {
        model(dir, "{\"model_type\": \"qwen3\", \"hidden_size\": 8}");
        ModelResolver resolved = ModelResolver.resolve(dir, Map.of("llama", new Family("llama", Set.of("llama")),
                "qwen", new Family("qwen", Set.of("qwen3", "qwen2"))));
        assertEquals("qwen", resolved.plugin());
        assertEquals(2, resolved.spec().layers().size());
    }

    @Test
    void anUnknownModelTypeIsARefusalListingWhatTheInstalledPluginsRead(@TempDir Path dir) throws IOException {
        model(dir, "{\"model_type\": \"mamba\"}");
        var none = assertThrows(UnsupportedCombinationException.class, () -> ModelResolver.resolve(dir, Map.of()));
        assertTrue(none.getMessage().contains("no model plugin reads model_type 'mamba'") && none.getMessage().contains("no model plugins are installed"),
                none.getMessage());
        var some = assertThrows(UnsupportedCombinationException.class,
                () -> ModelResolver.resolve(dir, Map.of("llama", new Family("llama", Set.of("llama", "mistral")))));
        assertEquals(List.of("installed model plugins read: llama, mistral"), some.reasons());
    }

    @Test
    void aMissingOrMalformedConfigNamesTheFileAndTheField(@TempDir Path dir) throws IOException {
        var missing = assertThrows(BadModelFileException.class, () -> ModelResolver.resolve(dir, Map.of()));
        assertEquals(dir.resolve("config.json"), missing.file());
        model(dir, "{\"architectures\": [\"LlamaForCausalLM\"]}");
        var noType = assertThrows(BadModelFileException.class, () -> ModelResolver.resolve(dir, Map.of()));
        assertTrue(noType.getMessage().contains("field model_type") && noType.getMessage().contains("found no such field"), noType.getMessage());
        model(dir, "{\"model_type\": ");
        var broken = assertThrows(BadModelFileException.class, () -> ModelResolver.resolve(dir, Map.of()));
        assertTrue(broken.getMessage().contains("expected a JSON object"), broken.getMessage());
    }
}
