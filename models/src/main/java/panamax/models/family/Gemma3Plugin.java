package panamax.models.family;

import java.util.Set;
import panamax.api.tensor.UnaryOp;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderFamily.SlidingPolicy;
import panamax.models.decoder.DecoderPlugin;

/** Gemma 3 (text): sliding and full layers with their own rope bases, {@code (1+w)} RMSNorm around attention and MLP, GELU-tanh MLP, embeddings scaled by √hidden, {@code query_pre_attn_scalar}. */
public final class Gemma3Plugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = new DecoderFamily("gemma3", false, true, true, true, UnaryOp.GELU_TANH, true, true, SlidingPolicy.PATTERN);

    public Gemma3Plugin() {
        super(FAMILY, Set.of("gemma3_text"));
    }
}
