package panamax.engine.structured;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;
import panamax.api.model.Tokenizer;

/**
 * Every token's bytes ({@link Tokenizer#tokenBytes}) in a trie, so that the tokens a grammar state
 * accepts are found by one walk that shares the work of common prefixes and prunes a subtree at
 * its first rejected byte. Tokens without bytes (special tokens, padding ids) are never in a mask.
 * Immutable and thread-safe; one per tokenizer ({@link #of}).
 */
public final class TokenVocabulary {
    private static final Map<Tokenizer, TokenVocabulary> BY_TOKENIZER = Collections.synchronizedMap(new WeakHashMap<>());
    private final int size;
    private final byte[][] bytes;
    /** Trie in compressed rows: node n's children are childByte/childNode[childStart[n], childStart[n+1]). */
    final int[] childStart;
    final byte[] childByte;
    final int[] childNode;
    /** Tokens whose bytes end at node n: tokenIds[tokenStart[n], tokenStart[n+1]). */
    final int[] tokenStart;
    final int[] tokenIds;

    /**
     * @param tokenBytes per id its bytes, or null (or empty) for an id a grammar never matches
     */
    public TokenVocabulary(byte[][] tokenBytes) {
        this.size = tokenBytes.length;
        this.bytes = new byte[size][];
        Node root = new Node();
        int nodes = 1;
        for (int id = 0; id < size; id++) {
            byte[] b = tokenBytes[id];
            if (b == null || b.length == 0) continue;
            bytes[id] = b.clone();
            Node at = root;
            for (byte x : b) {
                Node child = at.children.get(x & 0xFF);
                if (child == null) {
                    child = new Node();
                    at.children.put(x & 0xFF, child);
                    nodes++;
                }
                at = child;
            }
            at.tokens.add(id);
        }
        childStart = new int[nodes + 1];
        childByte = new byte[nodes - 1];
        childNode = new int[nodes - 1];
        tokenStart = new int[nodes + 1];
        List<Integer> tokens = new ArrayList<>();
        // Breadth-first numbering: children of node n get consecutive ids.
        List<Node> order = new ArrayList<>(nodes);
        order.add(root);
        int edges = 0;
        for (int n = 0; n < order.size(); n++) {
            Node node = order.get(n);
            childStart[n] = edges;
            tokenStart[n] = tokens.size();
            tokens.addAll(node.tokens);
            for (Map.Entry<Integer, Node> e : node.children.entrySet()) {
                childByte[edges] = (byte) (int) e.getKey();
                childNode[edges++] = order.size();
                order.add(e.getValue());
            }
        }
        childStart[nodes] = edges;
        tokenStart[nodes] = tokens.size();
        tokenIds = tokens.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The vocabulary of {@code tokenizer}, built on first use and kept while the tokenizer lives. */
    public static TokenVocabulary of(Tokenizer tokenizer) {
        return BY_TOKENIZER.computeIfAbsent(tokenizer, t -> {
            byte[][] table = new byte[t.vocabSize()][];
            for (int id = 0; id < table.length; id++) table[id] = t.tokenBytes(id);
            return new TokenVocabulary(table);
        });
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
        return childStart.length - 1;
    }

    @Override
    public String toString() {
        return "TokenVocabulary[" + size + " ids, " + nodes() + " trie nodes]";
    }

    private static final class Node {
        final TreeMap<Integer, Node> children = new TreeMap<>();
        final List<Integer> tokens = new ArrayList<>(1);
    }
}
