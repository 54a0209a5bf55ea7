package panamax.server;

import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import panamax.api.model.ChatMessage;
import panamax.engine.structured.Grammar;

/**
 * A validated {@code /v1/chat/completions} or {@code /v1/completions} body.
 *
 * @param chat            whether it is a chat completion (then {@code messages}, else {@code prompt} or {@code promptIds})
 * @param model           the model the client named, or null
 * @param messages        the conversation (chat)
 * @param prompt          the raw prompt text (completions), or null when {@code promptIds} is given
 * @param promptIds       a prompt given as token ids (completions), or null
 * @param maxTokens       {@code max_completion_tokens} or {@code max_tokens}; empty: up to the model's context
 * @param temperature     0 to 2 (default 1)
 * @param topP            (0, 1] (default 1)
 * @param topK            0 (all) or more
 * @param minP            [0, 1]
 * @param repetitionPenalty > 0; 1 is none
 * @param seed            the sampling seed, or empty for a fresh one per request
 * @param stop            stop strings
 * @param stream          whether to answer with server-sent events
 * @param includeUsage    whether a streamed answer ends with a usage chunk
 * @param topLogprobs     -1 without log-probabilities, else alternatives per token (0 to 20)
 * @param ignoreEos       vLLM's extra field: keep generating past end-of-sequence ids (benchmarks)
 * @param constraint      the grammar of {@code response_format} (json_object or json_schema), or null for free text
 * @param tools           the chat's {@code tools} and {@code tool_choice} ({@link ToolRequest#ABSENT} for none)
 */
public record CompletionParams(boolean chat, String model, List<ChatMessage> messages, String prompt, int[] promptIds,
                               OptionalInt maxTokens, double temperature, double topP, int topK, double minP,
                               double repetitionPenalty, OptionalLong seed, List<String> stop, boolean stream,
                               boolean includeUsage, int topLogprobs, boolean ignoreEos, Grammar constraint, ToolRequest tools) {
    public CompletionParams {
        messages = messages == null ? List.of() : List.copyOf(messages);
        stop = List.copyOf(stop);
        java.util.Objects.requireNonNull(tools, "tools");
    }
}
