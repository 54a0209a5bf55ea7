package panamax.engine.draft;

import java.util.List;
import panamax.api.draft.DraftContext;
import panamax.api.draft.Drafter;
import panamax.api.draft.DrafterCapabilities;
import panamax.api.draft.DrafterProvider;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;

/** The {@code ngram} drafter: prompt lookup over each row's own tokens (vLLM's {@code ngram}, llama.cpp's lookup decoding). */
public final class NgramDrafterProvider implements DrafterProvider {
    static final List<String> SIZES = List.of("1", "2", "3", "4", "5", "6", "7", "8");

    @Override
    public String id() {
        return "ngram";
    }

    @Override
    public DrafterCapabilities capabilities() {
        return new DrafterCapabilities("prompt lookup: the tokens that followed the latest earlier occurrence of the row's last n tokens"
                + " (longest n first) in its own prompt and output; no second model",
                List.of(new ParamSpec("ngram_max", "the longest suffix looked up (--ngram-max)", SIZES, "3"),
                        new ParamSpec("ngram_min", "the shortest suffix looked up (--ngram-min)", SIZES, "2")),
                false, 4);
    }

    @Override
    public Drafter create(PluginParams params, DraftContext context) {
        int max = params.getInt("ngram_max"), min = params.getInt("ngram_min");
        if (min > max) {
            throw new panamax.api.error.InvalidParameterException("ngram ngram_min", min, "at most ngram_max (" + max + ")");
        }
        return new NgramDrafter(min, max);
    }
}
