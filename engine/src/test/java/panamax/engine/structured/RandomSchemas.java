package panamax.engine.structured;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random JSON Schemas in the strict-mode subset, built from a seed (QuickTheories draws the seeds):
 * nested objects (all, or some, properties required), arrays with item bounds, strings with length
 * bounds, numbers, integers, booleans, nulls, enums, consts, anyOf, nullable type lists, and a
 * {@code $defs} entry used through {@code $ref}.
 */
final class RandomSchemas {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final List<String> NAMES = List.of("name", "age", "id", "tags", "value", "héllo", "a b", "quote\"d", "日本", "x");
    private final SplittableRandom random;

    private RandomSchemas(long seed) {
        this.random = new SplittableRandom(seed);
    }

    static JsonNode of(long seed) {
        RandomSchemas r = new RandomSchemas(seed);
        JsonNode root = r.schema(3);
        if (r.random.nextInt(3) == 0) {
            ObjectNode wrapped = F.objectNode();
            ObjectNode defs = wrapped.putObject("$defs");
            defs.set("item", root);
            wrapped.put("type", "object");
            ObjectNode props = wrapped.putObject("properties");
            props.putObject("first").put("$ref", "#/$defs/item");
            props.set("more", F.objectNode().put("type", "array").set("items", F.objectNode().put("$ref", "#/$defs/item")));
            wrapped.set("required", F.arrayNode().add("first").add("more"));
            wrapped.put("additionalProperties", false);
            ((ObjectNode) props.get("more")).put("maxItems", 2);
            return wrapped;
        }
        return root;
    }

    private JsonNode schema(int depth) {
        int kinds = depth > 0 ? 13 : 9;
        return switch (random.nextInt(kinds)) {
            case 0 -> string();
            case 1 -> F.objectNode().put("type", "integer");
            case 2 -> F.objectNode().put("type", "number");
            case 3 -> F.objectNode().put("type", "boolean");
            case 4 -> F.objectNode().put("type", "null");
            case 5 -> enumeration();
            case 6 -> F.objectNode().set("const", literal());
            case 7 -> F.objectNode().set("type", F.arrayNode().add("string").add("null"));
            case 8 -> F.objectNode().put("type", "integer").put("description", "an annotation, ignored");
            case 9, 10 -> object(depth - 1);
            case 11 -> array(depth - 1);
            default -> {
                ObjectNode any = F.objectNode();
                ArrayNode options = any.putArray("anyOf");
                for (int i = 0, n = 2 + random.nextInt(2); i < n; i++) options.add(schema(depth - 1));
                yield any;
            }
        };
    }

    private JsonNode string() {
        ObjectNode s = F.objectNode().put("type", "string");
        if (random.nextInt(3) == 0) s.put("minLength", random.nextInt(3));
        if (random.nextInt(3) == 0) s.put("maxLength", 3 + random.nextInt(5));
        return s;
    }

    private JsonNode enumeration() {
        ObjectNode e = F.objectNode();
        ArrayNode values = e.putArray("enum");
        for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) values.add(literal());
        return e;
    }

    private JsonNode literal() {
        return switch (random.nextInt(5)) {
            case 0 -> F.textNode(NAMES.get(random.nextInt(NAMES.size())));
            case 1 -> F.numberNode(random.nextInt(200) - 100);
            case 2 -> F.booleanNode(random.nextBoolean());
            case 3 -> F.nullNode();
            default -> F.numberNode(random.nextInt(1000) / 8.0);
        };
    }

    private JsonNode object(int depth) {
        ObjectNode o = F.objectNode().put("type", "object");
        ObjectNode props = o.putObject("properties");
        ArrayNode required = F.arrayNode();
        boolean strict = random.nextBoolean();
        for (int i = 0, n = random.nextInt(4); i < n; i++) {
            String name = NAMES.get(random.nextInt(NAMES.size()));
            if (props.has(name)) continue;
            props.set(name, schema(depth));
            if (strict || random.nextBoolean()) required.add(name);
        }
        o.set("required", required);
        o.put("additionalProperties", false);
        return o;
    }

    private JsonNode array(int depth) {
        ObjectNode a = F.objectNode().put("type", "array");
        a.set("items", schema(depth));
        if (random.nextInt(3) == 0) a.put("minItems", random.nextInt(3));
        if (random.nextInt(3) == 0) a.put("maxItems", 2 + random.nextInt(3));
        return a;
    }
}
