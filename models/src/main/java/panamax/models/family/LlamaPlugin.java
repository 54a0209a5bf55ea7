package panamax.models.family;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import panamax.api.model.ToolCallFormat;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.tools.ToolCallFormats;

/** Llama (1, 2, 3, 3.1 with {@code rope_scaling} type llama3): RMSNorm, SiLU-gated MLP, grouped-query attention. */
public final class LlamaPlugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = DecoderFamily.builder("llama").build();

    public LlamaPlugin() {
        super(FAMILY, Set.of("llama"));
    }

    @Override
    public Optional<ToolCallFormat> toolCallFormat(Path directory) {
        return ToolCallFormats.forDirectory(directory, ToolCallFormats.llama3Json());
    }
}
