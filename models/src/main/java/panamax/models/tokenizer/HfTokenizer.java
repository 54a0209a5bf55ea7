package panamax.models.tokenizer;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolDefinition;
import panamax.models.template.ChatTemplate;

/**
 * A {@code tokenizer.json} run by the Hugging Face {@code tokenizers} library (through DJL's
 * native binding), so ids are exact by construction. Owns the native tokenizer; thread-safe
 * (the native library is re-entrant for encode/decode).
 */
final class HfTokenizer implements Tokenizer {
    private final HuggingFaceTokenizer tokenizer;
    private final TokenizerFiles files;
    private final Optional<ChatTemplate> template;
    private final Path tokenizerJson;
    /** Per id the token's bytes, read on first use (structured outputs); null entries: none. */
    private volatile byte[][] pieces;
    private volatile boolean piecesRead;

    HfTokenizer(HuggingFaceTokenizer tokenizer, TokenizerFiles files, Path tokenizerJson) {
        this.tokenizer = tokenizer;
        this.files = files;
        this.tokenizerJson = tokenizerJson;
        this.template = files.chatTemplate().map(source ->
                new ChatTemplate(source, files.bosToken().orElse(""), files.eosToken().orElse("")));
    }

    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
        long[] ids = tokenizer.encode(text, addSpecialTokens, false).getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) out[i] = Math.toIntExact(ids[i]);
        return out;
    }

    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        long[] wide = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            // Ids past the tokenizer's vocabulary (models pad their embedding rows) decode to
            // nothing, as in the tokenizers library; negative ids are a caller's bug.
            if (ids[i] < 0) throw new IllegalArgumentException("token id " + ids[i] + " at index " + i + " is negative");
            wide[i] = ids[i];
        }
        return tokenizer.decode(wide, skipSpecialTokens);
    }

    @Override
    public byte[] tokenBytes(int id) {
        if (!piecesRead) {
            synchronized (this) {
                if (!piecesRead) {
                    pieces = TokenPieces.read(tokenizerJson, files.vocabSize(), files.addedTokens(), files.specialIds());
                    piecesRead = true;
                }
            }
        }
        if (pieces == null) return Tokenizer.super.tokenBytes(id);
        if (id < 0 || id >= pieces.length || pieces[id] == null) return null;
        return pieces[id].clone();
    }

    @Override
    public int vocabSize() {
        return files.vocabSize();
    }

    @Override
    public Set<Integer> eosIds() {
        return Set.copyOf(files.eosIds());
    }

    @Override
    public OptionalInt bosId() {
        return files.bosToken().map(files.addedTokens()::get).map(OptionalInt::of).orElse(OptionalInt.empty());
    }

    @Override
    public Map<String, Integer> addedTokens() {
        return Map.copyOf(files.addedTokens());
    }

    @Override
    public Set<Integer> specialIds() {
        return Set.copyOf(files.specialIds());
    }

    @Override
    public boolean hasChatTemplate() {
        return template.isPresent();
    }

    @Override
    public String renderChat(List<ChatMessage> messages, boolean addGenerationPrompt) {
        return template.orElseThrow(() -> new IllegalStateException("this model has no chat template"))
                .render(messages, addGenerationPrompt);
    }

    @Override
    public String renderChat(List<ChatMessage> messages, List<ToolDefinition> tools, boolean addGenerationPrompt) {
        ChatTemplate t = template.orElseThrow(() -> new IllegalStateException("this model has no chat template"));
        if (!tools.isEmpty() && !t.takesTools()) {
            throw new IllegalArgumentException("this model's chat template does not take tools (it never reads the 'tools' variable)");
        }
        return t.render(messages, tools, addGenerationPrompt);
    }

    /** The chat template, for callers that pass extra variables or tool calls. */
    Optional<ChatTemplate> chatTemplate() {
        return template;
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
