package panamax.engine.structured;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;

/**
 * A test tokenizer over byte pieces: ids 0..255 are single bytes, then multi-byte pieces (JSON
 * punctuation runs, words, and pieces that split a UTF-8 character), then one special EOS id.
 * Encoding is greedy longest match, which is enough for prompts.
 */
final class PieceTokenizer implements Tokenizer {
    private static final List<String> WORDS = List.of("{\"", "\":", "\": ", "\", \"", "\",", "\"}", "}}", "]}", "[{", "},", "}, {",
            ", ", "true", "false", "null", "name", "age", "id", "tags", "value", " the", "ing", "12", "0.", "-1", "e+", "  ", "\n",
            "\n  ", "\\n", "\\u00", "héllo", "€", "日本", "abc", "\"\"", "[]", "{}", "...");
    private final byte[][] pieces;
    final int eos;

    PieceTokenizer() {
        List<byte[]> all = new ArrayList<>();
        for (int b = 0; b < 256; b++) all.add(new byte[]{(byte) b});
        for (String w : WORDS) all.add(w.getBytes(StandardCharsets.UTF_8));
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
        all.add(Arrays.copyOf(euro, 2)); // a piece ending inside a character
        all.add(new byte[]{euro[2], '"'}); // and one starting inside it
        byte[] jp = "日本".getBytes(StandardCharsets.UTF_8);
        all.add(Arrays.copyOfRange(jp, 1, 4));
        pieces = all.toArray(byte[][]::new);
        eos = pieces.length;
    }

    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < b.length; ) {
            int best = b[i] & 0xFF, length = 1;
            for (int id = 256; id < pieces.length; id++) {
                byte[] p = pieces[id];
                if (p.length > length && i + p.length <= b.length && Arrays.equals(p, 0, p.length, b, i, i + p.length)) {
                    best = id;
                    length = p.length;
                }
            }
            ids.add(best);
            i += length;
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int id : ids) if (id < pieces.length) out.writeBytes(pieces[id]);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] tokenBytes(int id) {
        return id >= 0 && id < pieces.length ? pieces[id].clone() : null;
    }

    @Override
    public int vocabSize() {
        return pieces.length + 1;
    }

    @Override
    public Set<Integer> eosIds() {
        return Set.of(eos);
    }

    @Override
    public OptionalInt bosId() {
        return OptionalInt.empty();
    }

    @Override
    public Map<String, Integer> addedTokens() {
        return Map.of("</s>", eos);
    }

    @Override
    public Set<Integer> specialIds() {
        return Set.of(eos);
    }

    @Override
    public boolean hasChatTemplate() {
        return false;
    }

    @Override
    public String renderChat(List<ChatMessage> messages, boolean addGenerationPrompt) {
        throw new IllegalStateException("no chat template");
    }

    @Override
    public void close() {
    }
}
