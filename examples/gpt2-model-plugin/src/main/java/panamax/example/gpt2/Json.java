package panamax.example.gpt2;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for config.json and safetensors headers, since this plugin may depend on
 * panamax.api only. Objects become {@code Map<String, Object>} (insertion order, duplicate keys
 * refused), arrays {@code List<Object>}, numbers {@code Double} (or {@code Long} when integral and
 * exact), plus String, Boolean and null. Malformed text throws {@link IllegalArgumentException}
 * with the offset. Stateless apart from the cursor; one instance per document.
 */
final class Json {
    private static final int MAX_DEPTH = 64;

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    static Object parse(String text) {
        Json j = new Json(text);
        Object v = j.value(0);
        j.skipSpace();
        if (j.pos != text.length()) throw j.error("trailing characters");
        return v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at offset " + pos);
    }

    private void skipSpace() {
        while (pos < text.length() && " \t\r\n".indexOf(text.charAt(pos)) >= 0) pos++;
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) throw error("nesting deeper than " + MAX_DEPTH);
        skipSpace();
        if (pos >= text.length()) throw error("unexpected end");
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) throw error("unexpected character");
        pos += word.length();
        return value;
    }

    private Map<String, Object> object(int depth) {
        Map<String, Object> out = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == '}') {
            pos++;
            return out;
        }
        while (true) {
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != '"') throw error("expected a key");
            String key = string();
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != ':') throw error("expected ':'");
            pos++;
            if (out.containsKey(key)) throw error("duplicate key \"" + key + "\"");
            out.put(key, value(depth + 1));
            skipSpace();
            if (pos >= text.length()) throw error("unexpected end");
            char c = text.charAt(pos++);
            if (c == '}') return out;
            if (c != ',') throw error("expected ',' or '}'");
        }
    }

    private List<Object> array(int depth) {
        List<Object> out = new ArrayList<>();
        pos++;
        skipSpace();
        if (pos < text.length() && text.charAt(pos) == ']') {
            pos++;
            return out;
        }
        while (true) {
            out.add(value(depth + 1));
            skipSpace();
            if (pos >= text.length()) throw error("unexpected end");
            char c = text.charAt(pos++);
            if (c == ']') return out;
            if (c != ',') throw error("expected ',' or ']'");
        }
    }

    private String string() {
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= text.length()) throw error("unterminated string");
            char c = text.charAt(pos++);
            if (c == '"') return sb.toString();
            if (c < 0x20) throw error("control character in string");
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) throw error("unterminated escape");
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) throw error("short \\u escape");
                    try {
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("bad \\u escape");
                    }
                    pos += 4;
                }
                default -> throw error("bad escape");
            }
        }
    }

    private Object number() {
        int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) pos++;
        String s = text.substring(start, pos);
        if (s.isEmpty()) throw error("unexpected character");
        try {
            if (s.matches("-?(0|[1-9][0-9]{0,17})")) return Long.parseLong(s);
            if (!s.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) throw error("bad number '" + s + "'");
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw error("bad number '" + s + "'");
        }
    }
}
