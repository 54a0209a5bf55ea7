package panamax.engine.structured;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads llama.cpp's GBNF: {@code name ::= body} rules; bodies of alternatives ({@code |}),
 * sequences, string literals and character classes ({@code [a-z]}, {@code [^"\\]}) with the escapes
 * {@code \n \r \t \\ \" \[ \] \xHH \\uHHHH \UHHHHHHHH}, {@code .} for any character, rule names,
 * parenthesized groups and the repetitions {@code * + ?} and {@code {m}}, {@code {m,}},
 * {@code {m,n}}, {@code {,n}}; {@code #} comments. A rule ends where the next {@code name ::=}
 * starts, so bodies may span lines. Errors name the line and column. Not thread-safe; one per text.
 */
final class GbnfParser {
    /** The largest bound a {@code {m,n}} repetition may give (each unit becomes a rule). */
    static final int MAX_REPEAT = 10_000;
    private final String text;
    private int pos;
    private final Map<String, GrammarNode> rules = new LinkedHashMap<>();
    private final Map<String, int[]> definedAt = new LinkedHashMap<>();

    private GbnfParser(String text) {
        this.text = text;
    }

    /** The rules of {@code text} by name, in order of definition; each body is a {@link GrammarNode.Choice}. */
    static Parsed parse(String text) {
        GbnfParser p = new GbnfParser(text);
        p.grammar();
        return new Parsed(p.rules, p.definedAt);
    }

    /** Parsed rules and where each was defined (line, column). */
    record Parsed(Map<String, GrammarNode> rules, Map<String, int[]> definedAt) {
    }

    private void grammar() {
        skipSpace();
        if (pos >= text.length()) throw error(pos, "the grammar is empty; expected rules such as root ::= \"yes\" | \"no\"");
        while (pos < text.length()) {
            int start = pos;
            String name = name();
            if (name.isEmpty()) throw error(pos, "expected a rule name, found " + describe(pos));
            skipSpace();
            if (!text.startsWith("::=", pos)) throw error(pos, "expected ::= after rule name '" + name + "', found " + describe(pos));
            pos += 3;
            if (rules.containsKey(name)) {
                int[] first = definedAt.get(name);
                throw error(start, "rule '" + name + "' is defined twice (first at line " + first[0] + ", column " + first[1] + ")");
            }
            definedAt.put(name, lineColumn(start));
            rules.put(name, choice(false));
            skipSpace();
        }
    }

    private GrammarNode choice(boolean nested) {
        List<GrammarNode> options = new ArrayList<>();
        options.add(sequence(nested));
        while (true) {
            skipSpace();
            if (pos < text.length() && text.charAt(pos) == '|') {
                pos++;
                options.add(sequence(nested));
            } else {
                return new GrammarNode.Choice(options);
            }
        }
    }

    private GrammarNode sequence(boolean nested) {
        List<GrammarNode> items = new ArrayList<>();
        while (true) {
            skipSpace();
            if (pos >= text.length()) break;
            char c = text.charAt(pos);
            if (c == '|') break;
            if (c == ')') {
                if (!nested) throw error(pos, "')' without a matching '('");
                break;
            }
            if (!nested && startsRule()) break;
            GrammarNode item = primary();
            items.add(repetitions(item));
        }
        return new GrammarNode.Sequence(items);
    }

    private GrammarNode primary() {
        int start = pos;
        char c = text.charAt(pos);
        if (c == '"') return literal();
        if (c == '[') return charClass();
        if (c == '.') {
            pos++;
            return new GrammarNode.Chars(CharClass.ofRanges(new int[]{0, CharClass.MAX_CODE_POINT}, false));
        }
        if (c == '(') {
            pos++;
            GrammarNode inner = choice(true);
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != ')') throw error(start, "'(' is never closed");
            pos++;
            return inner;
        }
        String name = name();
        if (!name.isEmpty()) {
            int[] at = lineColumn(start);
            return new GrammarNode.RuleRef(name, at[0], at[1]);
        }
        if (c == '*' || c == '+' || c == '?' || c == '{') throw error(pos, "'" + c + "' has nothing before it to repeat");
        throw error(pos, "unexpected " + describe(pos) + "; expected a literal, [class], rule name, '(' or '.'");
    }

    private GrammarNode repetitions(GrammarNode item) {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '*') {
                item = new GrammarNode.Repeat(item, 0, -1);
            } else if (c == '+') {
                item = new GrammarNode.Repeat(item, 1, -1);
            } else if (c == '?') {
                item = new GrammarNode.Repeat(item, 0, 1);
            } else if (c == '{') {
                item = bounded(item);
                continue;
            } else {
                return item;
            }
            pos++;
        }
        return item;
    }

    private GrammarNode bounded(GrammarNode item) {
        int start = pos++;
        skipInlineSpace();
        Integer min = number();
        skipInlineSpace();
        int max;
        if (pos < text.length() && text.charAt(pos) == ',') {
            pos++;
            skipInlineSpace();
            Integer upper = number();
            max = upper == null ? -1 : upper;
        } else {
            if (min == null) throw error(pos, "expected a number in {m,n}, found " + describe(pos));
            max = min;
        }
        skipInlineSpace();
        if (pos >= text.length() || text.charAt(pos) != '}') throw error(pos, "expected '}' to close the repetition, found " + describe(pos));
        pos++;
        int lower = min == null ? 0 : min;
        if (max != -1 && max < lower) throw error(start, "repetition {" + lower + "," + max + "}: the maximum is below the minimum");
        if (Math.max(lower, max) > MAX_REPEAT) throw error(start, "repetition bound above " + MAX_REPEAT);
        return new GrammarNode.Repeat(item, lower, max);
    }

    private Integer number() {
        int start = pos;
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) pos++;
        if (start == pos) return null;
        try {
            return Integer.parseInt(text.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error(start, "repetition bound above " + MAX_REPEAT);
        }
    }

    private GrammarNode literal() {
        int start = pos++;
        List<GrammarNode> chars = new ArrayList<>();
        while (true) {
            if (pos >= text.length() || text.charAt(pos) == '\n') throw error(start, "string literal is never closed");
            int c = text.codePointAt(pos);
            if (c == '"') {
                pos++;
                return new GrammarNode.Sequence(chars);
            }
            chars.add(new GrammarNode.Chars(CharClass.of(character())));
        }
    }

    private GrammarNode charClass() {
        int start = pos++;
        boolean negated = pos < text.length() && text.charAt(pos) == '^';
        if (negated) pos++;
        List<Integer> pairs = new ArrayList<>();
        while (true) {
            if (pos >= text.length() || text.charAt(pos) == '\n') throw error(start, "character class is never closed (missing ']')");
            if (text.charAt(pos) == ']') {
                pos++;
                break;
            }
            int lo = character();
            int hi = lo;
            if (pos + 1 < text.length() && text.charAt(pos) == '-' && text.charAt(pos + 1) != ']' && text.charAt(pos + 1) != '\n') {
                int at = pos++;
                hi = character();
                if (hi < lo) throw error(at, "range " + CharClass.escape(lo) + "-" + CharClass.escape(hi) + " runs backwards");
            }
            pairs.add(lo);
            pairs.add(hi);
        }
        if (pairs.isEmpty() && !negated) throw error(start, "empty character class [] matches nothing");
        int[] ranges = pairs.stream().mapToInt(Integer::intValue).toArray();
        CharClass chars = CharClass.ofRanges(ranges, negated);
        if (chars.isEmpty()) throw error(start, "character class matches nothing");
        return new GrammarNode.Chars(chars);
    }

    /** One character of a literal or class, an escape sequence included. */
    private int character() {
        int c = text.codePointAt(pos);
        if (c != '\\') {
            pos += Character.charCount(c);
            return c;
        }
        int start = pos;
        if (pos + 1 >= text.length()) throw error(start, "'\\' at the end of the text");
        char e = text.charAt(pos + 1);
        pos += 2;
        return switch (e) {
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            case '\\', '"', '[', ']', '-', '^', '\'' -> e;
            case 'x' -> hex(start, 2);
            case 'u' -> hex(start, 4);
            case 'U' -> hex(start, 8);
            default -> throw error(start, "unknown escape '\\" + e + "'; expected one of \\n \\r \\t \\\\ \\\" \\[ \\] \\xHH \\uHHHH \\UHHHHHHHH");
        };
    }

    private int hex(int start, int digits) {
        if (pos + digits > text.length()) throw error(start, "escape needs " + digits + " hex digits");
        String h = text.substring(pos, pos + digits);
        int v;
        try {
            v = Integer.parseUnsignedInt(h, 16);
        } catch (NumberFormatException e) {
            throw error(start, "escape needs " + digits + " hex digits, found '" + h + "'");
        }
        if (v > CharClass.MAX_CODE_POINT || v < 0) throw error(start, "escape " + h + " is past the last code point U+10FFFF");
        pos += digits;
        return v;
    }

    private String name() {
        int start = pos;
        while (pos < text.length() && isNameChar(text.charAt(pos))) pos++;
        return text.substring(start, pos);
    }

    private static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }

    /** Whether {@code name ::=} starts at the current position. */
    private boolean startsRule() {
        int p = pos;
        while (p < text.length() && isNameChar(text.charAt(p))) p++;
        if (p == pos) return false;
        while (p < text.length() && (text.charAt(p) == ' ' || text.charAt(p) == '\t')) p++;
        return text.startsWith("::=", p);
    }

    private void skipSpace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '#') {
                while (pos < text.length() && text.charAt(pos) != '\n') pos++;
            } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private void skipInlineSpace() {
        while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) pos++;
    }

    private String describe(int at) {
        if (at >= text.length()) return "the end of the text";
        int c = text.codePointAt(at);
        return c == '\n' ? "the end of the line" : "'" + Character.toString(c) + "'";
    }

    private int[] lineColumn(int at) {
        int line = 1, column = 1;
        for (int i = 0; i < at && i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        return new int[]{line, column};
    }

    private GrammarSyntaxException error(int at, String problem) {
        int[] lc = lineColumn(at);
        return new GrammarSyntaxException(lc[0], lc[1], problem);
    }
}
