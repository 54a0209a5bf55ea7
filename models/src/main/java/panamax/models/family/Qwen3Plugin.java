package panamax.models.family;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import panamax.api.model.ToolCallFormat;
import panamax.models.decoder.DecoderFamily.SlidingPolicy;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.tools.ToolCallFormats;

/** Qwen3: per-head RMSNorm of q and k before RoPE, and a head dimension decoupled from hidden/heads. */
public final class Qwen3Plugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = DecoderFamily.builder("qwen3")
            .qkNorm(true).sliding(SlidingPolicy.FROM_MAX_WINDOW_LAYERS)
            .build();

    public Qwen3Plugin() {
        super(FAMILY, Set.of("qwen3"));
    }

    @Override
    public Optional<ToolCallFormat> toolCallFormat(Path directory) {
        return ToolCallFormats.forDirectory(directory, ToolCallFormats.hermes());
    }
}
