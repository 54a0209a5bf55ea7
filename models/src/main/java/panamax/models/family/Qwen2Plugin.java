package panamax.models.family;

import java.util.Set;
import panamax.api.tensor.UnaryOp;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderFamily.SlidingPolicy;
import panamax.models.decoder.DecoderPlugin;

/** Qwen2 / Qwen2.5: Llama blocks with biases on the q, k and v projections. */
public final class Qwen2Plugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = new DecoderFamily("qwen2", true, false, false, false, UnaryOp.SILU, false, false, SlidingPolicy.FROM_MAX_WINDOW_LAYERS);

    public Qwen2Plugin() {
        super(FAMILY, Set.of("qwen2"));
    }
}
