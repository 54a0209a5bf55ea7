package panamax.models.family;

import java.util.Set;
import panamax.models.decoder.DecoderFamily;
import panamax.models.decoder.DecoderPlugin;
import panamax.models.decoder.MixtureOfExperts;

/** Mixtral: Mistral's decoder with every MLP replaced by top-2 routed experts (softmax over the selected logits). */
public final class MixtralPlugin extends DecoderPlugin {
    static final DecoderFamily FAMILY = MistralPlugin.FAMILY.withExperts("mixtral", MixtureOfExperts.MIXTRAL);

    public MixtralPlugin() {
        super(FAMILY, Set.of("mixtral"));
    }
}
