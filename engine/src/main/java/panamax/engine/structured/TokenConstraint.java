package panamax.engine.structured;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A {@link Grammar} bound to a {@link TokenVocabulary}: for a grammar state, the set of tokens whose
 * bytes the automaton accepts from it, found by one walk of the vocabulary trie and cached by state
 * (a JSON string's body, say, is one state however long it runs). Thread-safe: rows of a batch
 * share one instance. Start a row with {@link #start}.
 */
public final class TokenConstraint {
    /** Mask memory a constraint may keep; older masks are dropped first. */
    private static final long CACHE_BYTES = 8L << 20;
    private final Grammar grammar;
    private final TokenVocabulary vocabulary;
    private final Map<GrammarState, long[]> masks;

    public TokenConstraint(Grammar grammar, TokenVocabulary vocabulary) {
        this.grammar = grammar;
        this.vocabulary = vocabulary;
        int maxEntries = (int) Math.max(64, CACHE_BYTES / (8L * words(vocabulary.size())));
        this.masks = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<GrammarState, long[]> eldest) {
                return size() > maxEntries;
            }
        };
    }

    public Grammar grammar() {
        return grammar;
    }

    public TokenVocabulary vocabulary() {
        return vocabulary;
    }

    /** A cursor at the grammar's start for one row; {@code stopIds} may end the row only where the grammar is complete. */
    public GrammarCursor start(Set<Integer> stopIds) {
        return new GrammarCursor(this, grammar.start(), stopIds);
    }

    /**
     * The tokens accepted from {@code state}, one bit per id ({@code bits[id >> 6] >> id & 1}); the
     * caller must not modify the array.
     */
    long[] mask(GrammarState state) {
        synchronized (masks) {
            long[] cached = masks.get(state);
            if (cached != null) return cached;
        }
        long[] bits = new long[words(vocabulary.size())];
        walk(0, state, bits);
        synchronized (masks) {
            masks.put(state, bits);
        }
        return bits;
    }

    /** Whether the bytes of {@code id} are accepted from {@code state}, without building a mask. */
    boolean accepts(GrammarState state, int id) {
        byte[] b = vocabulary.bytes(id);
        if (b == null) return false;
        GrammarState s = state;
        for (int i = 0; i < b.length && s != null; i++) s = s.advanceByte(b[i]);
        return s != null;
    }

    /** The state after the bytes of {@code id}, or null when they are rejected. */
    GrammarState advance(GrammarState state, int id) {
        byte[] b = vocabulary.bytes(id);
        if (b == null) return null;
        GrammarState s = state;
        for (int i = 0; i < b.length && s != null; i++) s = s.advanceByte(b[i]);
        return s;
    }

    int cachedMasks() {
        synchronized (masks) {
            return masks.size();
        }
    }

    /** Marks the tokens below {@code node} (whose bytes so far led to {@code state}) that the grammar accepts. */
    private void walk(int node, GrammarState state, long[] bits) {
        TokenVocabulary v = vocabulary;
        for (int child = node + 1; child < v.end[node]; child = v.end[child]) {
            GrammarState next = state.advanceByte(v.edge[child]);
            if (next == null) continue;
            for (int t = v.tokenStart[child]; t < v.tokenStart[child + 1]; t++) {
                int id = v.tokenIds[t];
                bits[id >>> 6] |= 1L << id;
            }
            if (v.end[child] > child + 1) walk(child, next, bits);
        }
    }

    static int words(int ids) {
        return (ids + 63) >>> 6;
    }
}
