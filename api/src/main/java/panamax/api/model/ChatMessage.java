package panamax.api.model;

import java.util.List;
import java.util.Objects;

/**
 * One turn of a chat conversation.
 *
 * @param role       {@code system}, {@code user}, {@code assistant} or {@code tool}
 * @param content    the turn's text (empty for an assistant turn that only calls tools)
 * @param toolCalls  the calls an assistant turn made (empty otherwise)
 * @param toolCallId for a {@code tool} turn, the id of the call it answers; null otherwise
 * @since 0.1
 */
public record ChatMessage(String role, String content, List<ToolCall> toolCalls, String toolCallId) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        if (role.isBlank()) throw new IllegalArgumentException("chat message role must not be blank");
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }

    /** A turn of plain text. */
    public ChatMessage(String role, String content) {
        this(role, content, List.of(), null);
    }

    /**
     * An assistant turn that calls tools.
     *
     * @since 0.3
     */
    public static ChatMessage assistantCalls(String content, List<ToolCall> calls) {
        return new ChatMessage("assistant", content == null ? "" : content, calls, null);
    }

    /**
     * A tool's answer to the call {@code toolCallId}.
     *
     * @since 0.3
     */
    public static ChatMessage toolResult(String toolCallId, String content) {
        return new ChatMessage("tool", content, List.of(), toolCallId);
    }
}
