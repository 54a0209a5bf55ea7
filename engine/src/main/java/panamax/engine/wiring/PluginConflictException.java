package panamax.engine.wiring;

import java.util.List;
import panamax.api.error.PanamaxException;

/** Two installed plugins claim the same id, so the engine cannot tell which one the user means. */
public final class PluginConflictException extends PanamaxException {
    private final List<String> conflicts;

    public PluginConflictException(List<String> conflicts, Throwable cause) {
        super("conflicting plugins, remove one of each pair:\n  - " + String.join("\n  - ", conflicts), cause);
        this.conflicts = List.copyOf(conflicts);
    }

    /** One line per duplicated id, naming every provider that claims it. */
    public List<String> conflicts() {
        return conflicts;
    }
}
