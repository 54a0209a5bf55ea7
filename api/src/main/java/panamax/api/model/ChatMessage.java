package panamax.api.model;

import java.util.Objects;

/**
 * One turn of a chat conversation.
 *
 * @param role    {@code system}, {@code user}, {@code assistant} or {@code tool}
 * @param content the turn's text
 * @since 0.1
 */
public record ChatMessage(String role, String content) {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        if (role.isBlank()) throw new IllegalArgumentException("chat message role must not be blank");
    }
}
