package panamax.models.family;

import java.util.Set;
import panamax.api.tensor.UnaryOp;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderFamily.SlidingPolicy;
import panamax.models.decoder.DecoderPlugin;

/** Gemma 3 (text): sliding and full layers with their own rope bases, {@code (1+w)} RMSNorm around attention and MLP, GELU-tanh MLP, embeddings scaled by √hidden, {@code query_pre_attn_scalar}. */
public final class Gemma3Plugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = DecoderFamily.builder("gemma3")
            .qkNorm(true).normPlusOne(true).sandwichNorms(true).activation(UnaryOp.GELU_TANH)
            .scaledEmbedding(true).tiedDefault(true).sliding(SlidingPolicy.PATTERN)
            .build();

    public Gemma3Plugin() {
        super(FAMILY, Set.of("gemma3_text"));
    }
}
