package panamax.models.family;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import panamax.api.model.ToolCallFormat;
import panamax.models.decoder.DecoderFamily.SlidingPolicy;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.tools.ToolCallFormats;

/** Mistral: Llama blocks with a sliding window on every layer when {@code sliding_window} is set. */
public final class MistralPlugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = DecoderFamily.builder("mistral")
            .sliding(SlidingPolicy.EVERY_LAYER)
            .build();

    public MistralPlugin() {
        super(FAMILY, Set.of("mistral"));
    }

    @Override
    public Optional<ToolCallFormat> toolCallFormat(Path directory) {
        return ToolCallFormats.forDirectory(directory, ToolCallFormats.mistral());
    }
}
