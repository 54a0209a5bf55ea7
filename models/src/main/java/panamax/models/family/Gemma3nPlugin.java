package panamax.models.family;

import java.util.Set;
import panamax.models.decoder.Gemma3nDecoderPlugin;

/**
 * Gemma 3n's text decoder ({@code gemma3n_text}, and the text tower of {@code gemma3n} checkpoints,
 * whose vision and audio towers are not loaded): AltUp streams, LAuReL, per-layer input embeddings,
 * Gaussian top-k sparse MLPs, and the last {@code num_kv_shared_layers} layers reading an earlier
 * layer's KV.
 */
public final class Gemma3nPlugin extends Gemma3nDecoderPlugin {
    public Gemma3nPlugin() {
        super("gemma3n", Set.of("gemma3n_text", "gemma3n"));
    }
}
