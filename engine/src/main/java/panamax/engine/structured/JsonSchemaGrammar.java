package panamax.engine.structured;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the GBNF grammar of the JSON texts that validate against a schema, in the subset OpenAI's
 * strict mode accepts: {@code type} (object, array, string, number, integer, boolean, null, or a
 * list of them), {@code properties} / {@code required} / {@code additionalProperties}, {@code items}
 * with {@code minItems} / {@code maxItems}, {@code minLength} / {@code maxLength}, {@code enum},
 * {@code const}, {@code anyOf}, and {@code $ref} to {@code $defs} (or {@code definitions}) and to
 * {@code #}. Properties come out in schema order; optional ones may be left out. Annotations
 * ({@code description}, {@code title}, …) are ignored; any other keyword is refused with an
 * {@link UnsupportedSchemaException} that names it. Whitespace between tokens is bounded
 * ({@link #WHITESPACE}) so that a model cannot pad forever; numbers have bounded digit counts.
 * The output's rules are prefixed, so it can be embedded in a larger grammar (a tool call's
 * wrapper around the arguments). Not thread-safe; one instance per schema.
 */
public final class JsonSchemaGrammar {
    /** Whitespace allowed between JSON tokens: nothing, one space, or one or two newlines and up to 20 blanks. */
    public static final String WHITESPACE = "| \" \" | \"\\n\"{1,2} [ \\t]{0,20}";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> ANNOTATIONS = Set.of("description", "title", "$comment", "examples", "default",
            "$schema", "$id", "deprecated", "readOnly", "writeOnly", "$defs", "definitions");
    private static final Set<String> TYPES = Set.of("object", "array", "string", "number", "integer", "boolean", "null");
    private static final Map<String, String> PRIMITIVES = new LinkedHashMap<>();

    static {
        PRIMITIVES.put("boolean", "\"true\" | \"false\"");
        PRIMITIVES.put("null", "\"null\"");
        PRIMITIVES.put("integer", "\"-\"? (\"0\" | [1-9] [0-9]{0,15})");
        PRIMITIVES.put("number", "\"-\"? (\"0\" | [1-9] [0-9]{0,15}) (\".\" [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?");
        // \\uXXXX escapes leave out surrogates, so each char is one code point (minLength / maxLength count those)
        PRIMITIVES.put("char", "[^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-CefEF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2}))");
        PRIMITIVES.put("string", "\"\\\"\" char* \"\\\"\"");
        PRIMITIVES.put("value", "object | array | string | number | boolean | null");
        PRIMITIVES.put("object", "\"{\" ws ( string ws \":\" ws value ws (\",\" ws string ws \":\" ws value ws)* )? \"}\"");
        PRIMITIVES.put("array", "\"[\" ws ( value ws (\",\" ws value ws)* )? \"]\"");
        PRIMITIVES.put("ws", WHITESPACE);
    }

    private final JsonNode root;
    private final String prefix;
    private final Map<String, String> rules = new LinkedHashMap<>();
    private final Set<String> primitivesUsed = new LinkedHashSet<>();
    private final Map<String, String> refRules = new HashMap<>();
    private int counter;

    private JsonSchemaGrammar(JsonNode root, String prefix) {
        this.root = root;
        this.prefix = prefix;
    }

    /**
     * The GBNF text of {@code schema} with start rule {@code root}.
     *
     * @throws UnsupportedSchemaException naming the first keyword outside the supported subset
     */
    public static String gbnf(JsonNode schema) {
        return gbnf(schema, "");
    }

    /**
     * The GBNF text of {@code schema} whose rule names all start with {@code prefix} (letters,
     * digits, '-'); its start rule is {@code prefix + "root"}. Another grammar can include the text
     * and refer to that rule.
     */
    public static String gbnf(JsonNode schema, String prefix) {
        if (!prefix.matches("[A-Za-z0-9-]*")) throw new IllegalArgumentException("rule prefix must be letters, digits or '-', found '" + prefix + "'");
        JsonSchemaGrammar g = new JsonSchemaGrammar(schema, prefix);
        String body = g.value(schema, "#");
        g.rules.put(prefix + "root", body);
        return g.text();
    }

    /** The GBNF text of any JSON object (OpenAI's {@code json_object} response format). */
    public static String anyJsonObject() {
        JsonSchemaGrammar g = new JsonSchemaGrammar(null, "");
        g.rules.put("root", g.primitive("object"));
        return g.text();
    }

    private String text() {
        StringBuilder out = new StringBuilder();
        List<Map.Entry<String, String>> all = new ArrayList<>(rules.entrySet());
        // the start rule first, for readers
        all.sort((a, b) -> Boolean.compare(!a.getKey().equals(prefix + "root"), !b.getKey().equals(prefix + "root")));
        for (Map.Entry<String, String> e : all) out.append(e.getKey()).append(" ::= ").append(e.getValue()).append('\n');
        for (String p : primitivesUsed) out.append(prefix).append(p).append(" ::= ").append(prefixed(PRIMITIVES.get(p))).append('\n');
        return out.toString();
    }

    /** A primitive's rule name, adding it and the primitives it uses. */
    private String primitive(String name) {
        if (primitivesUsed.add(name)) {
            switch (name) {
                case "string" -> primitive("char");
                case "value" -> List.of("object", "array", "string", "number", "boolean", "null").forEach(this::primitive);
                case "object" -> List.of("ws", "string", "value").forEach(this::primitive);
                case "array" -> List.of("ws", "value").forEach(this::primitive);
                default -> {
                }
            }
        }
        return prefix + name;
    }

    private String prefixed(String body) {
        if (prefix.isEmpty()) return body;
        StringBuilder out = new StringBuilder();
        // rule names in primitive bodies are the bare words outside literals and classes
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|\\[(?:[^\\]\\\\]|\\\\.)*\\]|\\{[^}]*\\}|[a-z]+").matcher(body);
        int last = 0;
        while (m.find()) {
            out.append(body, last, m.start());
            String t = m.group();
            out.append(Character.isLetter(t.charAt(0)) && PRIMITIVES.containsKey(t) ? prefix + t : t);
            last = m.end();
        }
        return out.append(body.substring(last)).toString();
    }

    private String newRule(String hint, String body) {
        String name = prefix + hint.replaceAll("[^A-Za-z0-9-]", "-") + "-" + (counter++);
        rules.put(name, body);
        return name;
    }

    /** A GBNF expression for the values {@code schema} accepts. */
    private String value(JsonNode schema, String path) {
        if (schema.isBoolean()) {
            if (schema.asBoolean()) return primitive("value");
            throw new UnsupportedSchemaException("false", path, "the schema false accepts no value");
        }
        if (!schema.isObject()) throw new UnsupportedSchemaException("(schema)", path, "expected an object, found " + schema.getNodeType());
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!ANNOTATIONS.contains(k) && !supported(k)) {
                throw new UnsupportedSchemaException(k, path, "not supported; supported keywords: type, properties, required, "
                        + "additionalProperties, items, minItems, maxItems, minLength, maxLength, enum, const, anyOf, $ref, $defs");
            }
        }
        if (schema.has("$ref")) {
            if (schema.size() > 1 && hasConstraintBesides(schema, "$ref")) {
                throw new UnsupportedSchemaException("$ref", path, "a $ref with sibling keywords is not supported");
            }
            return ref(schema.get("$ref"), path);
        }
        if (schema.has("const")) return literal(schema.get("const"));
        if (schema.has("enum")) {
            JsonNode values = schema.get("enum");
            if (!values.isArray() || values.isEmpty()) throw new UnsupportedSchemaException("enum", path, "expected a non-empty array");
            List<String> options = new ArrayList<>();
            for (JsonNode v : values) options.add(literal(v));
            return "(" + String.join(" | ", options) + ")";
        }
        if (schema.has("anyOf")) {
            JsonNode options = schema.get("anyOf");
            if (!options.isArray() || options.isEmpty()) throw new UnsupportedSchemaException("anyOf", path, "expected a non-empty array");
            if (hasConstraintBesides(schema, "anyOf")) throw new UnsupportedSchemaException("anyOf", path, "anyOf with sibling keywords is not supported");
            List<String> out = new ArrayList<>();
            for (int i = 0; i < options.size(); i++) out.add(value(options.get(i), path + "/anyOf/" + i));
            return "(" + String.join(" | ", out) + ")";
        }
        JsonNode type = schema.get("type");
        if (type == null) {
            if (schema.has("properties")) return object(schema, path);
            if (schema.has("items")) return array(schema, path);
            return primitive("value");
        }
        if (type.isArray()) {
            if (type.isEmpty()) throw new UnsupportedSchemaException("type", path, "expected at least one type");
            List<String> out = new ArrayList<>();
            for (JsonNode t : type) out.add(typed(schema, t, path));
            return "(" + String.join(" | ", out) + ")";
        }
        return typed(schema, type, path);
    }

    private static boolean supported(String keyword) {
        return switch (keyword) {
            case "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength",
                 "maxLength", "enum", "const", "anyOf", "$ref" -> true;
            default -> false;
        };
    }

    private static boolean hasConstraintBesides(JsonNode schema, String keyword) {
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals(keyword) && !ANNOTATIONS.contains(k)) return true;
        }
        return false;
    }

    private String typed(JsonNode schema, JsonNode type, String path) {
        if (!type.isTextual() || !TYPES.contains(type.asText())) {
            throw new UnsupportedSchemaException("type", path, "expected one of " + TYPES + ", found " + type);
        }
        return switch (type.asText()) {
            case "object" -> object(schema, path);
            case "array" -> array(schema, path);
            case "string" -> string(schema, path);
            default -> primitive(type.asText());
        };
    }

    private String string(JsonNode schema, String path) {
        int min = count(schema, "minLength", path, 0);
        int max = count(schema, "maxLength", path, -1);
        if (min == 0 && max == -1) return primitive("string");
        if (max != -1 && max < min) throw new UnsupportedSchemaException("maxLength", path, "below minLength " + min);
        return "\"\\\"\" " + primitive("char") + "{" + min + "," + (max == -1 ? "" : max) + "} \"\\\"\"";
    }

    private int count(JsonNode schema, String keyword, String path, int otherwise) {
        JsonNode n = schema.get(keyword);
        if (n == null) return otherwise;
        if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 0 || n.asInt() > GbnfParser.MAX_REPEAT) {
            throw new UnsupportedSchemaException(keyword, path, "expected an integer in [0, " + GbnfParser.MAX_REPEAT + "], found " + n);
        }
        return n.asInt();
    }

    private String object(JsonNode schema, String path) {
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && !additional.isBoolean()) {
            throw new UnsupportedSchemaException("additionalProperties", path, "only true or false is supported (strict mode: false)");
        }
        JsonNode properties = schema.get("properties");
        if (properties == null) {
            if (schema.has("required") && !schema.get("required").isEmpty()) {
                throw new UnsupportedSchemaException("required", path, "names properties but the schema has no \"properties\"");
            }
            // No declared properties: any object when extra properties are allowed, else only {}.
            return additional != null && !additional.asBoolean() ? "\"{\" " + primitive("ws") + " \"}\"" : primitive("object");
        }
        if (!properties.isObject()) throw new UnsupportedSchemaException("properties", path, "expected an object");
        Set<String> required = new LinkedHashSet<>();
        JsonNode req = schema.get("required");
        if (req != null) {
            if (!req.isArray()) throw new UnsupportedSchemaException("required", path, "expected an array of property names");
            for (JsonNode r : req) {
                if (!r.isTextual() || !properties.has(r.asText())) {
                    throw new UnsupportedSchemaException("required", path, "names " + r + ", which is not in \"properties\"");
                }
                required.add(r.asText());
            }
        }
        List<String> names = new ArrayList<>();
        List<String> pairs = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> p = it.next();
            String valueExpr = value(p.getValue(), path + "/properties/" + p.getKey());
            names.add(p.getKey());
            pairs.add(literal(JSON.getNodeFactory().textNode(p.getKey())) + " " + primitive("ws") + " \":\" " + primitive("ws") + " "
                    + valueExpr + " " + primitive("ws"));
        }
        String ws = primitive("ws");
        if (names.isEmpty()) return "\"{\" " + ws + " \"}\"";
        // first[i]: properties i.. with none written yet; rest[i]: the same after one was written (needs a comma).
        int n = names.size();
        String[] first = new String[n + 1], rest = new String[n + 1];
        first[n] = rest[n] = null; // the empty remainder
        for (int i = n - 1; i >= 0; i--) {
            boolean optional = !required.contains(names.get(i));
            String afterThis = rest[i + 1] == null ? "" : " " + rest[i + 1];
            String restBody = "\",\" " + ws + " " + pairs.get(i) + afterThis + (optional ? " | " + (rest[i + 1] == null ? "" : rest[i + 1]) : "");
            rest[i] = newRule("obj-rest", restBody);
            String firstBody = pairs.get(i) + afterThis + (optional ? " | " + (first[i + 1] == null ? "" : first[i + 1]) : "");
            first[i] = newRule("obj", firstBody);
        }
        return "\"{\" " + ws + " " + first[0] + " \"}\"";
    }

    private String array(JsonNode schema, String path) {
        JsonNode items = schema.get("items");
        if (items != null && items.isArray()) throw new UnsupportedSchemaException("items", path, "tuple form (an array of schemas) is not supported");
        String item = items == null ? primitive("value") : value(items, path + "/items");
        int min = count(schema, "minItems", path, 0);
        int max = count(schema, "maxItems", path, -1);
        if (max != -1 && max < min) throw new UnsupportedSchemaException("maxItems", path, "below minItems " + min);
        String ws = primitive("ws");
        String element = newRule("item", item + " " + ws);
        String next = "\",\" " + ws + " " + element;
        if (max == 0) return "\"[\" " + ws + " \"]\"";
        String tail = "(" + next + "){" + Math.max(0, min - 1) + "," + (max == -1 ? "" : String.valueOf(max - 1)) + "}";
        String body = element + " " + tail;
        return "\"[\" " + ws + " " + (min == 0 ? "(" + body + ")?" : body) + " \"]\"";
    }

    private String ref(JsonNode ref, String path) {
        if (!ref.isTextual()) throw new UnsupportedSchemaException("$ref", path, "expected a string");
        String target = ref.asText();
        String existing = refRules.get(target);
        if (existing != null) return existing;
        JsonNode resolved;
        String hint;
        if (target.equals("#")) {
            resolved = root;
            hint = "root-ref";
        } else if (target.startsWith("#/$defs/") || target.startsWith("#/definitions/")) {
            String[] parts = target.substring(2).split("/", 2);
            resolved = root == null ? null : root.path(parts[0]).get(parts[1].replace("~1", "/").replace("~0", "~"));
            hint = parts[1];
        } else {
            throw new UnsupportedSchemaException("$ref", path, "only references to #, #/$defs/NAME or #/definitions/NAME are supported, found " + target);
        }
        if (resolved == null) throw new UnsupportedSchemaException("$ref", path, "no definition at " + target);
        // Name the rule before compiling its body, so a recursive definition refers to itself.
        String name = prefix + "ref-" + hint.replaceAll("[^A-Za-z0-9-]", "-") + "-" + (counter++);
        refRules.put(target, name);
        rules.put(name, ""); // keeps definition order
        rules.put(name, value(resolved, target));
        return name;
    }

    /** A GBNF literal of the compact JSON text of {@code value}. */
    private static String literal(JsonNode value) {
        String json;
        try {
            json = JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize " + value, e);
        }
        StringBuilder out = new StringBuilder("\"");
        json.codePoints().forEach(c -> out.append(literalChar(c)));
        return out.append('"').toString();
    }

    private static String literalChar(int c) {
        return switch (c) {
            case '\\' -> "\\\\";
            case '"' -> "\\\"";
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> c < 0x20 || c == 0x7f ? String.format("\\x%02X", c) : Character.toString(c);
        };
    }
}
