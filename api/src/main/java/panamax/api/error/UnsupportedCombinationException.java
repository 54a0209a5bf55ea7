package panamax.api.error;

import java.util.List;

/** The requested combination of backend, model, codec and layout cannot be resolved. */
public final class UnsupportedCombinationException extends PanamaxException {
    private final List<String> reasons;

    public UnsupportedCombinationException(String what, List<String> reasons) {
        super(what + (reasons.isEmpty() ? "" : ":\n  - " + String.join("\n  - ", reasons)));
        this.reasons = List.copyOf(reasons);
    }

    /** One line per refused option, each naming the capability or parameter that was missing. */
    public List<String> reasons() {
        return reasons;
    }
}
