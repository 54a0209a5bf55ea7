package panamax.models.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Path;
import java.util.List;
import panamax.api.error.BadModelFileException;
import panamax.models.decoder.DecoderConfig;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.family.Gemma3Plugin;
import panamax.models.family.LlamaPlugin;
import panamax.models.family.MistralPlugin;
import panamax.models.family.Qwen2Plugin;
import panamax.models.family.Qwen3Plugin;
import panamax.models.hf.HfConfig;

/**
 * config.json reading under arbitrary bytes, for every family: a config is either read into a
 * consistent {@link DecoderConfig} or rejected with {@link BadModelFileException}; any other
 * throwable fails. Regression inputs live under
 * {@code src/test/resources/panamax/models/fuzz/ConfigFuzzTestInputs/}.
 */
class ConfigFuzzTest {
    private static final Path FILE = Path.of("config.json");
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
                DecoderConfig c = DecoderConfig.read(config, plugin.family());
                if (c.attention().size() != c.layers() || c.heads() % c.kvHeads() != 0 || c.attention().stream()
                        .anyMatch(a -> a.window() < 0 || a.rope().dims() > c.headDim())) {
                    throw new AssertionError("accepted an inconsistent config " + c);
                }
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
}
