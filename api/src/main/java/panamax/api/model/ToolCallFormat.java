package panamax.api.model;

import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * How a model family writes tool calls: a model plugin declares it through
 * {@link ModelPlugin#toolCallFormat}, and a server uses it to read calls out of the answer and to
 * force a call. Implementations are stateless and thread-safe.
 *
 * @since 0.3
 */
public interface ToolCallFormat {
    /** Stable id, e.g. {@code hermes}, {@code llama3_json}, {@code mistral}. */
    String id();

    /** A parser for one answer. */
    ToolCallParser newParser();

    /** How one call is written as a JSON object, for forcing a call. */
    ToolCallSyntax syntax();

    /**
     * Special tokens the parser must see. Detokenized text leaves special tokens out, so a caller
     * that sees one of these tokens generated feeds its content to the parser in its place.
     */
    default Set<String> markerTokens() {
        return Set.of();
    }

    /** A fresh call id in the form this family's templates accept: {@code call_} and 24 letters and digits. */
    default String newCallId(RandomGenerator random) {
        return "call_" + alphanumeric(random, 24);
    }

    /** {@code length} random ASCII letters and digits. */
    static String alphanumeric(RandomGenerator random, int length) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder id = new StringBuilder(length);
        for (int i = 0; i < length; i++) id.append(alphabet.charAt(random.nextInt(alphabet.length())));
        return id.toString();
    }
}
