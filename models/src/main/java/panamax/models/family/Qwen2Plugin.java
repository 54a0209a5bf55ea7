package panamax.models.family;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import panamax.api.model.ToolCallFormat;
import panamax.models.decoder.DecoderFamily.SlidingPolicy;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.tools.ToolCallFormats;

/** Qwen2 / Qwen2.5: Llama blocks with biases on the q, k and v projections. */
public final class Qwen2Plugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = DecoderFamily.builder("qwen2")
            .qkvBiasDefault(true).sliding(SlidingPolicy.FROM_MAX_WINDOW_LAYERS)
            .build();

    public Qwen2Plugin() {
        super(FAMILY, Set.of("qwen2"));
    }

    @Override
    public Optional<ToolCallFormat> toolCallFormat(Path directory) {
        return ToolCallFormats.forDirectory(directory, ToolCallFormats.hermes());
    }
}
