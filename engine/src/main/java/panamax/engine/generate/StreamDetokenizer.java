package panamax.engine.generate;

import java.util.Arrays;
import panamax.api.model.Tokenizer;

/**
 * Turns a growing list of token ids into text deltas that never split a character. Byte-level
 * tokenizers emit one UTF-8 byte sequence across several tokens, and SentencePiece decoders drop
 * a leading space when a token is decoded alone; so each delta is the difference between decoding
 * a short window that ends at the newest token and the same window without the unread tokens,
 * and a delta ending in U+FFFD (an incomplete character) is held back until the character
 * completes. Special tokens are skipped. Not thread-safe: one instance per row.
 */
public final class StreamDetokenizer {
    private static final char REPLACEMENT = '\uFFFD';

    private final Tokenizer tokenizer;
    private int[] ids = new int[16];
    private int size;
    /** Start of the decoding window: tokens before it are fully emitted and not needed as context. */
    private int prefixOffset;
    /** Tokens before this index have had their text emitted. */
    private int readOffset;

    public StreamDetokenizer(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** Appends {@code id} and returns the text that became complete (possibly empty). */
    public String add(int id) {
        if (size == ids.length) ids = Arrays.copyOf(ids, size * 2);
        ids[size++] = id;
        String before = decode(prefixOffset, readOffset);
        String now = decode(prefixOffset, size);
        if (now.length() > before.length() && now.charAt(now.length() - 1) != REPLACEMENT && now.startsWith(before)) {
            String delta = now.substring(before.length());
            prefixOffset = readOffset;
            readOffset = size;
            return delta;
        }
        return "";
    }

    /** The text of tokens not yet emitted (incomplete characters come out as U+FFFD); resets nothing else. */
    public String flush() {
        String before = decode(prefixOffset, readOffset);
        String now = decode(prefixOffset, size);
        prefixOffset = readOffset = size;
        return now.length() > before.length() && now.startsWith(before) ? now.substring(before.length()) : "";
    }

    private String decode(int from, int to) {
        return from == to ? "" : tokenizer.decode(Arrays.copyOfRange(ids, from, to), true);
    }
}
