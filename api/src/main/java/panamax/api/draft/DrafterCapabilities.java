package panamax.api.draft;

import java.util.List;
import panamax.api.kv.ParamSpec;

/**
 * What a drafter plugin declares before it is instantiated.
 *
 * @param description        one line for {@code panamax plugins}
 * @param params             the parameters it accepts (e.g. {@code ngram_max})
 * @param needsDraftModel    it drafts with a second, smaller model ({@link DraftContext#draftModel()} must be present)
 * @param defaultDraftTokens tokens drafted per row and step when the user gives no count
 */
public record DrafterCapabilities(String description, List<ParamSpec> params, boolean needsDraftModel, int defaultDraftTokens) {
    public DrafterCapabilities {
        params = List.copyOf(params);
        if (defaultDraftTokens < 1) throw new IllegalArgumentException("default draft tokens must be at least 1, found " + defaultDraftTokens);
    }
}
