package panamax.engine.structured;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;
import panamax.api.model.Tokenizer;

/**
 * Every token's bytes ({@link Tokenizer#tokenBytes}) in a trie, so that the tokens a grammar state
 * accepts are found by one walk that shares the work of common prefixes and prunes a subtree at
 * its first rejected byte. Tokens without bytes (special tokens, padding ids) are never in a mask.
 * The trie is stored in depth-first order: node {@code n}'s subtree is {@code [n, end[n])}, so its
 * children are {@code n + 1}, {@code end[n + 1]}, … — built from the sorted tokens in one pass.
 * Immutable and thread-safe; one per tokenizer ({@link #of}).
 */
public final class TokenVocabulary {
    private static final Map<Tokenizer, TokenVocabulary> BY_TOKENIZER = Collections.synchronizedMap(new WeakHashMap<>());
    /** Bound grammars kept (each with its mask cache); the least recently used go first. */
    private static final int CACHED_CONSTRAINTS = 32;
    private final Map<Grammar, TokenConstraint> constraints = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Grammar, TokenConstraint> eldest) {
            return size() > CACHED_CONSTRAINTS;
        }
    });
    private final int size;
    private final byte[][] bytes;
    /** Per node: the byte on the edge into it, and the end of its subtree. Node 0 is the root. */
    final byte[] edge;
    final int[] end;
    /** Tokens whose bytes end at node n: tokenIds[tokenStart[n], tokenStart[n+1]). */
    final int[] tokenStart;
    final int[] tokenIds;

    /**
     * @param tokenBytes per id its bytes, or null (or empty) for an id a grammar never matches
     */
    public TokenVocabulary(byte[][] tokenBytes) {
        this.size = tokenBytes.length;
        this.bytes = new byte[size][];
        int count = 0;
        Integer[] order = new Integer[size];
        for (int id = 0; id < size; id++) {
            byte[] b = tokenBytes[id];
            if (b == null || b.length == 0) continue;
            bytes[id] = b.clone();
            order[count++] = id;
        }
        Integer[] sorted = Arrays.copyOf(order, count);
        Arrays.sort(sorted, (a, b) -> Arrays.compareUnsigned(bytes[a], bytes[b]));
        int maxNodes = 1;
        for (Integer id : sorted) maxNodes += bytes[id].length;
        byte[] edges = new byte[maxNodes];
        int[] ends = new int[maxNodes];
        int[] owner = new int[count]; // the node each sorted token ends at
        int[] path = new int[1];       // node at each depth of the current path; path[0] = root
        int nodes = 1;
        byte[] previous = new byte[0];
        for (int k = 0; k < count; k++) {
            byte[] b = bytes[sorted[k]];
            int common = Arrays.mismatch(previous, b);
            if (common < 0) common = b.length; // the same bytes as the previous token
            // close the nodes of the previous path below the shared prefix
            for (int d = previous.length; d > common; d--) ends[path[d]] = nodes;
            if (path.length < b.length + 1) path = Arrays.copyOf(path, Math.max(b.length + 1, path.length * 2));
            for (int d = common + 1; d <= b.length; d++) {
                edges[nodes] = b[d - 1];
                path[d] = nodes++;
            }
            owner[k] = path[b.length];
            previous = b;
        }
        for (int d = previous.length; d >= 1; d--) ends[path[d]] = nodes;
        ends[0] = nodes;
        this.edge = Arrays.copyOf(edges, nodes);
        this.end = Arrays.copyOf(ends, nodes);
        this.tokenStart = new int[nodes + 1];
        this.tokenIds = new int[count];
        for (int k = 0; k < count; k++) tokenStart[owner[k] + 1]++;
        for (int n = 0; n < nodes; n++) tokenStart[n + 1] += tokenStart[n];
        int[] fill = Arrays.copyOf(tokenStart, nodes);
        for (int k = 0; k < count; k++) tokenIds[fill[owner[k]]++] = sorted[k];
    }

    /** The vocabulary of {@code tokenizer}, built on first use and kept while the tokenizer lives. */
    public static TokenVocabulary of(Tokenizer tokenizer) {
        return BY_TOKENIZER.computeIfAbsent(tokenizer, t -> {
            byte[][] table = new byte[t.vocabSize()][];
            for (int id = 0; id < table.length; id++) table[id] = t.tokenBytes(id);
            return new TokenVocabulary(table);
        });
    }

    /** {@code grammar} bound to this vocabulary, shared (with its mask cache) by every row that uses both. */
    TokenConstraint constraint(Grammar grammar) {
        return constraints.computeIfAbsent(grammar, g -> new TokenConstraint(g, this));
    }

    /** Number of ids (those without bytes included). */
    public int size() {
        return size;
    }

    /** The bytes of {@code id}, or null when it has none or is out of range. */
    byte[] bytes(int id) {
        return id >= 0 && id < size ? bytes[id] : null;
    }

    int nodes() {
        return end.length;
    }

    @Override
    public String toString() {
        return "TokenVocabulary[" + size + " ids, " + nodes() + " trie nodes]";
    }
}
