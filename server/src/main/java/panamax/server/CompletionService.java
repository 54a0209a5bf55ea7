package panamax.server;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCallFormat;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.SamplingParams;
import panamax.engine.structured.Constraints;
import panamax.engine.structured.Grammar;
import panamax.engine.serve.RowEventQueue;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.RequestRejectedException;
import panamax.engine.serve.ServeRequest;
import panamax.engine.serve.Ticket;

/**
 * Turns validated OpenAI parameters into a scheduler request: the chat template or the raw prompt,
 * the sampling settings, the token limit (the rest of the model's context when none is given) and
 * the stops; submits it and hands back the stream of its events. Transport-free; thread-safe.
 */
final class CompletionService {
    /** What a submission gives back: the scheduler's ticket, the row's events, the prompt's length and the reader of its tool calls. */
    record Submitted(Ticket ticket, RowEventQueue events, int promptTokens, ToolAnswer tools) {
    }

    private final BatchScheduler scheduler;
    private final Tokenizer tokenizer;
    private final int contextLength;
    private final String modelId;
    private final SplittableRandom seeds = new SplittableRandom();
    private final ToolPrompts tools;

    /**
     * @param contextLength  the model's context in tokens (0: unknown, then a default limit applies)
     * @param toolCallFormat how the model writes tool calls, as its plugin declares; empty when it takes no tools
     */
    public CompletionService(BatchScheduler scheduler, Tokenizer tokenizer, int contextLength, String modelId,
                             Optional<ToolCallFormat> toolCallFormat) {
        this.scheduler = scheduler;
        this.tokenizer = tokenizer;
        this.contextLength = contextLength;
        this.modelId = modelId;
        this.tools = new ToolPrompts(toolCallFormat, tokenizer, modelId);
    }

    public String modelId() {
        return modelId;
    }

    /**
     * Tokenizes and submits {@code params}.
     *
     * @throws ApiException 400 for a wrong model, a prompt the template rejects or that does not fit,
     *         429 when the queue is full, 503 when shutting down
     */
    public Submitted submit(CompletionParams params) {
        if (params.model() != null && !params.model().equals(modelId)) {
            throw new ApiException(404, "invalid_request_error", "model", "model_not_found",
                    "the model '" + params.model() + "' does not exist; this server serves '" + modelId + "'", null);
        }
        ToolAnswer answer = tools.answer(params.tools());
        int[] prompt = promptIds(params, answer);
        if (prompt.length == 0) throw ApiException.invalid(params.chat() ? "messages" : "prompt", "the prompt encodes to no tokens");
        if (params.maxTokens().isEmpty() && contextLength > 0 && prompt.length >= contextLength) {
            // no max_tokens to blame: the prompt alone leaves no room for an answer
            throw new ApiException(400, "invalid_request_error", params.chat() ? "messages" : "prompt", "context_length_exceeded",
                    "this model's context is " + contextLength + " tokens; the prompt's " + prompt.length + " tokens leave no room for an answer", null);
        }
        int maxTokens = params.maxTokens().orElseGet(() -> Math.max(1, (contextLength > 0 ? contextLength : 2048) - prompt.length));
        SamplingParams sampling = new SamplingParams(params.temperature(), params.topK(), params.topP(), params.minP(),
                params.repetitionPenalty(), 64, params.seed().orElseGet(this::freshSeed));
        Grammar forcedCall = tools.grammar(params.tools(), answer);
        if (forcedCall != null && params.constraint() != null) {
            throw ApiException.invalid("response_format", "response_format: cannot constrain an answer that tool_choice already forces to be a call");
        }
        GenerationRequest generation;
        try {
            generation = new GenerationRequest(prompt, sampling, maxTokens, params.ignoreEos() ? java.util.Set.of() : tokenizer.eosIds(), params.stop())
                    .withConstraint(forcedCall != null ? forcedCall : params.constraint());
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid(null, e.getMessage());
        }
        // Bind the grammar here, on the caller's thread: the first binding builds the vocabulary's
        // byte trie (seconds for a 150k vocabulary), which must not stall the scheduler's batch.
        if (generation.constraint() != null) Constraints.bind(generation.constraint(), tokenizer);
        RowEventQueue events = new RowEventQueue();
        try {
            Ticket ticket = scheduler.submit(new ServeRequest(generation, params.topLogprobs(), events));
            return new Submitted(ticket, events, prompt.length, answer);
        } catch (RequestRejectedException e) {
            throw rejected(e);
        }
    }

    private synchronized long freshSeed() {
        return seeds.nextLong();
    }

    private int[] promptIds(CompletionParams params, ToolAnswer answer) {
        if (!params.chat()) {
            if (params.promptIds() != null) {
                for (int id : params.promptIds()) {
                    if (id >= tokenizer.vocabSize()) {
                        throw ApiException.invalid("prompt", "prompt: token id " + id + " is outside the vocabulary of " + tokenizer.vocabSize());
                    }
                }
                return params.promptIds().clone();
            }
            return tokenizer.encode(params.prompt(), true);
        }
        if (!tokenizer.hasChatTemplate()) {
            throw ApiException.invalid("messages", "the model '" + modelId + "' has no chat template; use /v1/completions with a raw prompt");
        }
        List<ChatMessage> messages = params.messages();
        String rendered;
        try {
            rendered = tools.render(messages, params.tools(), answer);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("messages", "the model's chat template rejected the conversation: " + e.getMessage());
        }
        // The template writes the special tokens itself, as transformers' apply_chat_template does.
        return tokenizer.encode(rendered, false);
    }

    static ApiException rejected(RequestRejectedException e) {
        return switch (e.kind()) {
            case INVALID -> new ApiException(400, "invalid_request_error", e.parameter(), "context_length_exceeded", e.getMessage(), null);
            case BUSY -> new ApiException(429, "rate_limit_exceeded", null, "queue_full", e.getMessage(), 1);
            case UNAVAILABLE -> new ApiException(503, "server_error", null, "shutting_down", e.getMessage(), null);
        };
    }
}
