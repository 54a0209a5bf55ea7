package panamax.engine.generate;

/** Opens the KV cache for a generation call. */
@FunctionalInterface
public interface KvSessionFactory {
    /**
     * A new cache for {@code rows} rows of up to {@code contextTokens} columns each (prompt padding
     * included); owned by the caller.
     */
    KvSession open(int rows, int contextTokens);
}
