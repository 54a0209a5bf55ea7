package panamax.engine.structured;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import panamax.api.model.Tokenizer;

/**
 * Entry points for structured outputs: compile a JSON schema, OpenAI's {@code json_object} or GBNF
 * text to a {@link Grammar} (each compiled once and cached by its text, so a repeated schema reuses
 * the grammar and its token masks), and bind a grammar to a tokenizer's vocabulary. Attach the
 * grammar to a request with {@code GenerationRequest.withConstraint}. Thread-safe.
 *
 * {@snippet :
 * Grammar grammar = Constraints.jsonSchema(schemaNode);   // UnsupportedSchemaException names a bad keyword
 * GenerationRequest request = new GenerationRequest(ids, sampling, 256, tokenizer.eosIds()).withConstraint(grammar);
 * }
 */
public final class Constraints {
    private static final int CACHED_GRAMMARS = 64;
    private static final Map<String, Grammar> GRAMMARS = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Grammar> eldest) {
            return size() > CACHED_GRAMMARS;
        }
    });

    private Constraints() {
    }

    /**
     * The grammar of JSON texts that validate against {@code schema} (see {@link JsonSchemaGrammar}
     * for the supported subset).
     *
     * @throws UnsupportedSchemaException naming the first keyword outside the subset
     */
    public static Grammar jsonSchema(JsonNode schema) {
        return gbnf(JsonSchemaGrammar.gbnf(schema));
    }

    /** The grammar of any JSON object ({@code response_format: {"type": "json_object"}}). */
    public static Grammar jsonObject() {
        return gbnf(JsonSchemaGrammar.anyJsonObject());
    }

    /**
     * The grammar of GBNF text with start rule {@code root}.
     *
     * @throws GrammarSyntaxException with the line and column of the problem
     */
    public static Grammar gbnf(String text) {
        Grammar cached = GRAMMARS.get(text);
        if (cached != null) return cached;
        Grammar compiled = Grammar.parse(text);
        Grammar raced = GRAMMARS.putIfAbsent(text, compiled);
        return raced != null ? raced : compiled;
    }

    /** {@code grammar} over {@code tokenizer}'s vocabulary, shared (with its mask cache) by every row that uses both. */
    public static TokenConstraint bind(Grammar grammar, Tokenizer tokenizer) {
        return TokenVocabulary.of(tokenizer).constraint(grammar);
    }
}
