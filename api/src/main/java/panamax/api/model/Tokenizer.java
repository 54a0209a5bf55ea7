package panamax.api.model;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Turns text into token ids and back, and renders chat conversations through the model's chat
 * template. Implementations are found through {@link TokenizerProvider}. Instances are safe for
 * use from several threads unless the implementation says otherwise; closing releases native
 * resources, after which every method may throw {@link IllegalStateException}.
 *
 * {@snippet :
 * try (Tokenizer tokenizer = provider.load(directory)) {
 *     int[] ids = tokenizer.encode("Hello", true);
 *     String text = tokenizer.decode(ids, true);
 * }
 * }
 *
 * @since 0.1
 */
public interface Tokenizer extends AutoCloseable {
    /**
     * Token ids of {@code text}; with {@code addSpecialTokens} the tokenizer's post-processor adds
     * what the model expects around a sequence (e.g. a BOS id). Special tokens written in the text
     * (e.g. {@code <|im_start|>}) map to their ids either way.
     */
    int[] encode(String text, boolean addSpecialTokens);

    /**
     * The text of {@code ids}; with {@code skipSpecialTokens} special tokens are left out. Ids at or
     * past {@link #vocabSize()} (a model's padded embedding rows) decode to nothing.
     *
     * @throws IllegalArgumentException when an id is negative
     */
    String decode(int[] ids, boolean skipSpecialTokens);

    /** Number of ids, including added tokens: every id is in {@code [0, vocabSize())}. */
    int vocabSize();

    /** Ids that end a generation (from the tokenizer and generation configs); may be empty. */
    Set<Integer> eosIds();

    /** The id of the beginning-of-sequence token, if the model has one. */
    OptionalInt bosId();

    /** Added tokens by content (special and not), e.g. {@code <|im_end|> -> 151645}. */
    Map<String, Integer> addedTokens();

    /** Ids of the added tokens marked special; {@link #decode} skips them when asked. */
    Set<Integer> specialIds();

    /**
     * The bytes token {@code id} adds to decoded text in the middle of a sequence (its leading space
     * included), for decoding constrained by a grammar; a token that holds part of a multi-byte
     * UTF-8 character gives those bytes. Null for special tokens and ids without text. The default
     * decodes the id alone, which is exact only for tokenizers whose tokens hold whole characters.
     *
     * @since 0.2
     */
    default byte[] tokenBytes(int id) {
        if (id < 0 || id >= vocabSize() || specialIds().contains(id)) return null;
        String text = decode(new int[]{id}, false);
        return text.isEmpty() || text.indexOf('\uFFFD') >= 0 ? null : text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Whether the model ships a chat template. */
    boolean hasChatTemplate();

    /**
     * Renders a conversation through the model's chat template, as Hugging Face's
     * {@code apply_chat_template(messages, tokenize=False, add_generation_prompt=...)} does.
     *
     * @throws IllegalStateException when {@link #hasChatTemplate()} is false
     * @throws IllegalArgumentException when the template rejects the conversation (its
     *         {@code raise_exception} message is the exception's message)
     */
    String renderChat(List<ChatMessage> messages, boolean addGenerationPrompt);

    /**
     * Renders a conversation and the functions the model may call (the template's {@code tools}
     * variable, as {@code apply_chat_template(messages, tools=...)} passes them); assistant turns'
     * tool calls and tool turns reach the template as OpenAI's message fields. The default renders
     * without tools and refuses a non-empty list.
     *
     * @throws IllegalStateException when {@link #hasChatTemplate()} is false
     * @throws IllegalArgumentException when the template rejects the conversation, or tools are
     *         given to a tokenizer that cannot pass them on
     * @since 0.3
     */
    default String renderChat(List<ChatMessage> messages, List<ToolDefinition> tools, boolean addGenerationPrompt) {
        if (!tools.isEmpty()) throw new IllegalArgumentException("this tokenizer cannot pass tools to its chat template");
        return renderChat(messages, addGenerationPrompt);
    }

    @Override
    void close();
}
