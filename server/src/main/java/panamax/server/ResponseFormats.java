package panamax.server;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Set;
import panamax.engine.structured.Constraints;
import panamax.engine.structured.Grammar;
import panamax.engine.structured.UnsupportedSchemaException;

/**
 * Reads OpenAI's {@code response_format} into the grammar that constrains the output:
 * {@code {"type": "text"}} (none), {@code {"type": "json_object"}} (any JSON object) and
 * {@code {"type": "json_schema", "json_schema": {"name": …, "schema": {…}, "strict": true}}}.
 * A schema outside the supported subset is a 400 that names the keyword and where it is.
 */
final class ResponseFormats {
    private static final Set<String> JSON_SCHEMA_FIELDS = Set.of("name", "description", "schema", "strict");

    private ResponseFormats() {
    }

    /** The grammar of {@code format}, or null for free text (absent, null or {@code text}). */
    static Grammar grammar(JsonNode format) {
        if (format == null || format.isNull() || format.isMissingNode()) return null;
        if (!format.isObject()) throw ApiException.invalid("response_format", "response_format: expected an object such as {\"type\": \"json_object\"}");
        JsonNode type = format.get("type");
        if (type == null || !type.isTextual()) {
            throw ApiException.invalid("response_format.type", "response_format.type: required, one of text, json_object, json_schema");
        }
        for (Iterator<String> it = format.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!f.equals("type") && !(f.equals("json_schema") && type.asText().equals("json_schema"))) {
                throw ApiException.invalid("response_format." + f, "response_format." + f + ": unrecognized for type " + type.asText());
            }
        }
        return switch (type.asText()) {
            case "text" -> null;
            case "json_object" -> Constraints.jsonObject();
            case "json_schema" -> schema(format.get("json_schema"));
            default -> throw ApiException.invalid("response_format.type",
                    "response_format.type: expected text, json_object or json_schema, found '" + type.asText() + "'");
        };
    }

    private static Grammar schema(JsonNode spec) {
        String at = "response_format.json_schema";
        if (spec == null || !spec.isObject()) throw ApiException.invalid(at, at + ": required object with \"name\" and \"schema\"");
        for (Iterator<String> it = spec.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!JSON_SCHEMA_FIELDS.contains(f)) throw ApiException.invalid(at + "." + f, at + "." + f + ": unrecognized");
        }
        JsonNode name = spec.get("name");
        if (name == null || !name.isTextual() || !name.asText().matches("[A-Za-z0-9_-]{1,64}")) {
            throw ApiException.invalid(at + ".name", at + ".name: required, 1 to 64 letters, digits, '_' or '-'");
        }
        JsonNode strict = spec.get("strict");
        if (strict != null && !strict.isNull() && !strict.isBoolean()) throw ApiException.invalid(at + ".strict", at + ".strict: expected true or false");
        JsonNode schema = spec.get("schema");
        if (schema == null || !schema.isObject()) throw ApiException.invalid(at + ".schema", at + ".schema: required JSON Schema object");
        try {
            return Constraints.jsonSchema(schema);
        } catch (UnsupportedSchemaException e) {
            throw ApiException.invalid(at + ".schema", at + ".schema: " + e.getMessage());
        }
    }
}
