package panamax.models.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import panamax.api.error.BadModelFileException;
import panamax.models.decoder.DecoderConfig;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.family.Gemma3Plugin;
import panamax.models.family.LlamaPlugin;
import panamax.models.family.MistralPlugin;
import panamax.models.family.Qwen2Plugin;
import panamax.models.family.Qwen3Plugin;
import panamax.model.support.config.HfConfig;

/**
 * config.json reading under arbitrary bytes, for every family: a config is either read into a
 * consistent {@link DecoderConfig} or rejected with {@link BadModelFileException}; any other
 * throwable fails. Regression inputs live under
 * {@code src/test/resources/panamax/models/fuzz/ConfigFuzzTestInputs/}; those named {@code valid-*}
 * must be read by the family plugin that claims their {@code model_type}, so a reader that
 * rejected everything would fail.
 */
class ConfigFuzzTest {
    private static final Path FILE = Path.of("config.json");
    private static final String INPUTS = "ConfigFuzzTestInputs/configsEitherReadConsistentlyOrFailWithBadModelFile";
    private static final List<DecoderPlugin> FAMILIES = List.of(new LlamaPlugin(), new MistralPlugin(), new Qwen2Plugin(),
            new Qwen3Plugin(), new Gemma3Plugin());

    @FuzzTest(maxDuration = "30s")
    void configsEitherReadConsistentlyOrFailWithBadModelFile(byte[] data) {
        HfConfig config;
        try {
            config = HfConfig.parse(FILE, data);
        } catch (BadModelFileException expected) {
            return;
        }
        for (DecoderPlugin plugin : FAMILIES) {
            try {
                check(DecoderConfig.read(config, plugin.family()));
            } catch (BadModelFileException expected) {
                // rejected with file and field named
            }
        }
        try {
            config.intOrInts("eos_token_id");
        } catch (BadModelFileException expected) {
            // rejected with file and field named
        }
    }

    @Test
    void theValidSeedsAreReadByTheFamilyOfTheirModelType() throws Exception {
        List<Path> valid = seeds("valid-");
        assertTrue(valid.size() >= 5, "valid seeds: " + valid);
        for (Path f : valid) {
            HfConfig config;
            try {
                config = HfConfig.parse(FILE, Files.readAllBytes(f));
            } catch (BadModelFileException e) {
                throw new AssertionError(f.getFileName() + " is valid and must parse: " + e.getMessage(), e);
            }
            String modelType = config.string("model_type").orElseThrow(() -> new AssertionError(f.getFileName() + " names no model_type"));
            DecoderPlugin plugin = FAMILIES.stream().filter(p -> p.modelTypes().contains(modelType)).findFirst()
                    .orElseThrow(() -> new AssertionError(f.getFileName() + ": no family reads model_type " + modelType));
            try {
                check(DecoderConfig.read(config, plugin.family()));
            } catch (BadModelFileException e) {
                fail(f.getFileName() + " is valid and must be read by " + plugin.family().id() + ": " + e.getMessage(), e);
            }
        }
    }

    private static void check(DecoderConfig c) {
        if (c.attention().size() != c.layers() || c.heads() % c.kvHeads() != 0 || c.attention().stream()
                .anyMatch(a -> a.window() < 0 || a.rope().dims() > c.headDim())) {
            throw new AssertionError("accepted an inconsistent config " + c);
        }
    }

    private static List<Path> seeds(String prefix) throws IOException, URISyntaxException {
        URL dir = ConfigFuzzTest.class.getResource(INPUTS);
        if (dir == null) throw new AssertionError("no seed directory " + INPUTS + " on the class path");
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList();
        }
    }
}
