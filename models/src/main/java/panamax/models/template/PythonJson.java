package panamax.models.template;

import java.util.Map;

/**
 * Serializes template values as Python's {@code json.dumps(x, ensure_ascii=False)} does, which
 * is what Hugging Face's {@code tojson} filter produces: {@code ", "} and {@code ": "} separators,
 * non-ASCII characters kept, optional indentation. Stateless; thread-safe.
 */
final class PythonJson {
    private PythonJson() {
    }

    static String dumps(Object value, int indent) {
        StringBuilder out = new StringBuilder();
        write(out, value, indent, 0);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value, int indent, int depth) {
        switch (value) {
            case null -> out.append("null");
            case Boolean b -> out.append(b ? "true" : "false");
            case Double d when d.isNaN() -> out.append("NaN");
            case Number n -> out.append(n);
            case CharSequence s -> quote(out, s.toString());
            case Map<?, ?> map -> writeMap(out, map, indent, depth);
            case Iterable<?> items -> writeList(out, items, indent, depth);
            case Object[] array -> writeList(out, java.util.Arrays.asList(array), indent, depth);
            default -> quote(out, value.toString());
        }
    }

    private static void writeMap(StringBuilder out, Map<?, ?> map, int indent, int depth) {
        if (map.isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
            separator(out, first, indent, depth + 1);
            quote(out, String.valueOf(e.getKey()));
            out.append(": ");
            write(out, e.getValue(), indent, depth + 1);
            first = false;
        }
        newline(out, indent, depth);
        out.append('}');
    }

    private static void writeList(StringBuilder out, Iterable<?> items, int indent, int depth) {
        if (!items.iterator().hasNext()) {
            out.append("[]");
            return;
        }
        out.append('[');
        boolean first = true;
        for (Object item : items) {
            separator(out, first, indent, depth + 1);
            write(out, item, indent, depth + 1);
            first = false;
        }
        newline(out, indent, depth);
        out.append(']');
    }

    private static void separator(StringBuilder out, boolean first, int indent, int depth) {
        if (!first) out.append(indent > 0 ? "," : ", ");
        newline(out, indent, depth);
    }

    private static void newline(StringBuilder out, int indent, int depth) {
        if (indent > 0) out.append('\n').append(" ".repeat(indent * depth));
    }

    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        out.append('"');
    }
}
