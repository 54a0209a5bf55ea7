package panamax.engine.generate;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;

/**
 * A byte-level test tokenizer: ids 0..255 are UTF-8 bytes, 256 is EOS (special). Decoding invalid
 * UTF-8 gives U+FFFD as the real byte-level decoders do.
 */
final class ByteTokenizer implements Tokenizer {
    static final int EOS = 256;

    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int[] ids = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) ids[i] = bytes[i] & 0xFF;
        return ids;
    }

    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StringBuilder out = new StringBuilder();
        for (int id : ids) {
            if (id == EOS) {
                if (!skipSpecialTokens) {
                    out.append(bytes.toString(StandardCharsets.UTF_8)).append("</s>");
                    bytes.reset();
                }
                continue;
            }
            bytes.write(id);
        }
        return out.append(bytes.toString(StandardCharsets.UTF_8)).toString();
    }

    @Override
    public int vocabSize() {
        return 257;
    }

    @Override
    public Set<Integer> eosIds() {
        return Set.of(EOS);
    }

    @Override
    public OptionalInt bosId() {
        return OptionalInt.empty();
    }

    @Override
    public Map<String, Integer> addedTokens() {
        return Map.of("</s>", EOS);
    }

    @Override
    public Set<Integer> specialIds() {
        return Set.of(EOS);
    }

    @Override
    public boolean hasChatTemplate() {
        return false;
    }

    @Override
    public String renderChat(List<ChatMessage> messages, boolean addGenerationPrompt) {
        throw new IllegalStateException("the byte tokenizer has no chat template");
    }

    @Override
    public void close() {
    }
}
