package panamax.api.kv;

/**
 * A row-layout plugin, found with {@link java.util.ServiceLoader}.
 */
public interface KvLayoutProvider {
    /** Stable id, e.g. {@code full}, {@code rotating}, {@code delayed}. */
    String id();

    LayoutCapabilities capabilities();

    /**
     * How many tokens per row this layout keeps for a context of {@code contextTokens}: all of them,
     * or a window for bounded layouts. Used by the planner to project memory.
     */
    default long storedTokens(PluginParams params, long contextTokens) {
        return contextTokens;
    }

    /** A new layout, owned by the caller. Params are already resolved. */
    KvLayout create(PluginParams params, LayoutContext context);
}
