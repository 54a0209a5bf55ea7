package panamax.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.LongSupplier;
import panamax.api.model.Tokenizer;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.SamplingParams;
import panamax.engine.serve.Completion;
import panamax.engine.serve.RequestRejectedException;

/**
 * Translates between LangChain4j and the scheduler: a chat request (messages through the model's
 * chat template, parameters over the owner's defaults) into a generation request, a completion
 * into a chat response, a rejection into LangChain4j's exceptions. Thread-safe.
 */
final class ChatRequests {
    /** The token limit when neither the request nor the defaults give one and the model declares no context. */
    private static final int FALLBACK_CONTEXT = 2048;
    /** Recent tokens the (unused, neutral) repetition penalty would look at; as the server sets it. */
    private static final int REPETITION_CONTEXT = 64;

    private final Tokenizer tokenizer;
    private final int contextLength;
    private final String modelName;
    private final ChatRequestParameters defaults;
    private final LongSupplier seeds;

    /**
     * @param contextLength the model's context in tokens (0: unknown)
     * @param seed          the seed of every request, or null for a fresh one per request
     */
    ChatRequests(Tokenizer tokenizer, int contextLength, String modelName, ChatRequestParameters defaults, Long seed) {
        this.tokenizer = tokenizer;
        this.contextLength = contextLength;
        this.modelName = modelName;
        this.defaults = defaults;
        if (seed != null) {
            long fixed = seed;
            this.seeds = () -> fixed;
        } else {
            SplittableRandom random = new SplittableRandom();
            this.seeds = () -> {
                synchronized (random) {
                    return random.nextLong();
                }
            };
        }
    }

    ChatRequestParameters defaults() {
        return defaults;
    }

    /**
     * The generation {@code request} asks for.
     *
     * @throws UnsupportedFeatureException for tools, a non-text response format or penalties, naming the parameter
     * @throws IllegalArgumentException for a message panamax cannot render, a wrong model name or token limit
     */
    GenerationRequest generation(ChatRequest request) {
        ChatRequestParameters p = defaults.overrideWith(request.parameters());
        refuseUnsupported(p);
        int[] prompt = promptIds(request.messages());
        int maxTokens;
        if (p.maxOutputTokens() != null) {
            maxTokens = p.maxOutputTokens();
            if (maxTokens < 1) throw new IllegalArgumentException("maxOutputTokens: expected at least 1, found " + maxTokens);
        } else {
            maxTokens = Math.max(1, (contextLength > 0 ? contextLength : FALLBACK_CONTEXT) - prompt.length);
        }
        SamplingParams sampling = new SamplingParams(orElse(p.temperature(), 1.0), orElse(p.topK(), 0), orElse(p.topP(), 1.0), 0, 1,
                REPETITION_CONTEXT, seeds.getAsLong());
        List<String> stops = p.stopSequences() == null ? List.of() : p.stopSequences();
        return new GenerationRequest(prompt, sampling, maxTokens, tokenizer.eosIds(), stops);
    }

    private void refuseUnsupported(ChatRequestParameters p) {
        if (p.modelName() != null && !p.modelName().equals(modelName)) {
            throw new IllegalArgumentException("modelName: this chat model serves '" + modelName + "', not '" + p.modelName() + "'");
        }
        if (p.toolSpecifications() != null && !p.toolSpecifications().isEmpty()) {
            throw new UnsupportedFeatureException("toolSpecifications: panamax chat models do not call tools (" + p.toolSpecifications().size()
                    + " tool specifications given)");
        }
        if (p.toolChoice() == ToolChoice.REQUIRED) {
            throw new UnsupportedFeatureException("toolChoice: panamax chat models do not call tools (REQUIRED given)");
        }
        if (p.responseFormat() != null && p.responseFormat().type() != ResponseFormatType.TEXT) {
            throw new UnsupportedFeatureException("responseFormat: panamax chat models answer in plain text only (" + p.responseFormat().type()
                    + " given)");
        }
        if (p.frequencyPenalty() != null && p.frequencyPenalty() != 0) {
            throw new UnsupportedFeatureException("frequencyPenalty: not supported by panamax chat models (" + p.frequencyPenalty() + " given)");
        }
        if (p.presencePenalty() != null && p.presencePenalty() != 0) {
            throw new UnsupportedFeatureException("presencePenalty: not supported by panamax chat models (" + p.presencePenalty() + " given)");
        }
    }

    /** The conversation rendered by the model's chat template and tokenized (the template writes the special tokens). */
    private int[] promptIds(List<ChatMessage> messages) {
        if (messages == null || messages.isEmpty()) throw new IllegalArgumentException("messages: expected at least one message, found none");
        String rendered;
        try {
            rendered = tokenizer.renderChat(messages(messages), true);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("messages: the model's chat template rejected the conversation: " + e.getMessage(), e);
        }
        int[] ids = tokenizer.encode(rendered, false);
        if (ids.length == 0) throw new IllegalArgumentException("messages: the conversation encodes to no tokens");
        return ids;
    }

    /**
     * LangChain4j's messages as chat turns.
     *
     * @throws IllegalArgumentException for a message other than system, user (text only) or AI (text only), naming its type
     */
    static List<panamax.api.model.ChatMessage> messages(List<ChatMessage> messages) {
        List<panamax.api.model.ChatMessage> turns = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            ChatMessage m = messages.get(i);
            turns.add(switch (m) {
                case SystemMessage s -> new panamax.api.model.ChatMessage("system", s.text());
                case UserMessage u -> new panamax.api.model.ChatMessage("user", userText(i, u));
                case AiMessage a -> {
                    if (a.hasToolExecutionRequests()) {
                        throw new IllegalArgumentException("messages[" + i + "]: an AiMessage with tool execution requests; panamax chat models"
                                + " do not call tools");
                    }
                    yield new panamax.api.model.ChatMessage("assistant", a.text() == null ? "" : a.text());
                }
                case null -> throw new IllegalArgumentException("messages[" + i + "]: null");
                default -> throw new IllegalArgumentException("messages[" + i + "]: a " + m.getClass().getSimpleName() + " (" + m.type()
                        + "); panamax chat models take SystemMessage, UserMessage and AiMessage");
            });
        }
        return turns;
    }

    private static String userText(int index, UserMessage message) {
        List<String> texts = new ArrayList<>();
        for (Content content : message.contents()) {
            if (!(content instanceof TextContent text)) {
                throw new IllegalArgumentException("messages[" + index + "]: a UserMessage with " + content.type()
                        + " content; panamax chat models take text only");
            }
            texts.add(text.text());
        }
        return String.join("\n", texts);
    }

    /** The chat response of a finished request ({@code id} names it). */
    ChatResponse response(String id, Completion completion) {
        FinishReason finish = switch (completion.result().finish()) {
            case LENGTH -> FinishReason.LENGTH;
            case EOS, STOP_STRING -> FinishReason.STOP;
        };
        PanamaxChatResponseMetadata metadata = PanamaxChatResponseMetadata.builder()
                .id(id)
                .modelName(modelName)
                .tokenUsage(new TokenUsage(completion.promptTokens(), completion.completionTokens()))
                .finishReason(finish)
                .cachedTokens(completion.cachedTokens())
                .queuedSeconds(completion.queuedSeconds())
                .firstTokenSeconds(completion.firstTokenSeconds())
                .totalSeconds(completion.totalSeconds())
                .build();
        return ChatResponse.builder().aiMessage(new AiMessage(completion.result().text())).metadata(metadata).build();
    }

    /**
     * LangChain4j's exception for a scheduler failure: an invalid request, a full queue (retriable)
     * or a closed model; any other failure unchanged.
     */
    static RuntimeException translated(Throwable error) {
        return switch (error) {
            case RequestRejectedException r -> switch (r.kind()) {
                case INVALID -> new InvalidRequestException((r.parameter() == null ? "" : "maxOutputTokens: ") + r.getMessage(), r);
                case BUSY -> new RateLimitException(r.getMessage(), r);
                case UNAVAILABLE -> new IllegalStateException("the panamax chat models are closed: " + r.getMessage(), r);
            };
            case RuntimeException e -> e;
            default -> new IllegalStateException("generation failed: " + error, error);
        };
    }

    private static <T> T orElse(T value, T fallback) {
        return value != null ? value : fallback;
    }
}
