package panamax.models.template;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites the few Jinja2 constructs of Hugging Face chat templates that Jinjava cannot parse into
 * equivalents it can. Only text inside {@code {{ }}} and {@code {% %}} is touched; literal template
 * text passes unchanged. Stateless; thread-safe.
 */
final class TemplateRewriter {
    /** A Jinja expression or statement block. */
    private static final Pattern BLOCK = Pattern.compile("\\{\\{.*?}}|\\{%.*?%}", Pattern.DOTALL);
    /** {@code x[::-1]} (Jinjava's slices have no step). */
    private static final Pattern REVERSE = Pattern.compile("([A-Za-z_][\\w.]*(?:\\[[^\\[\\]]*])*|\\))\\[\\s*:\\s*:\\s*-1\\s*]");
    /** {@code x[::n]}, a forward step. */
    private static final Pattern STEP = Pattern.compile("\\[\\s*(-?\\d*)\\s*:\\s*(-?\\d*)\\s*:\\s*(\\d+)\\s*]");
    /** {@code not x is defined}: Jinja2 reads {@code not (x is defined)}, Jinjava {@code (not x) is defined}. */
    private static final Pattern NOT_IS = Pattern.compile("\\bnot\\s+([A-Za-z_][\\w.]*(?:\\[[^\\[\\]]*])*)\\s+is\\s+(not\\s+)?([A-Za-z_]\\w*)\\b");
    /** Python's literals spelled as Jinja does not accept them in every position. */
    private static final Pattern PY_LITERALS = Pattern.compile("\\b(True|False|None)\\b");

    /** Whitespace before a block or comment tag that starts its line ({@code lstrip_blocks}). */
    private static final Pattern LSTRIP = Pattern.compile("(?m)^[ \\t]+(?=\\{[%#](?!\\+))");
    /** The first newline after a block or comment tag ({@code trim_blocks}). */
    private static final Pattern TRIM = Pattern.compile("([^+])([%#]})\\r?\\n");

    private TemplateRewriter() {
    }

    /**
     * Applies transformers' {@code trim_blocks} and {@code lstrip_blocks} as Jinja2 defines them:
     * Jinjava's own lstrip also eats whitespace after text on the same line ({@code }} {% endfor %}}),
     * which Jinja2 keeps.
     */
    static String blockWhitespace(String template) {
        String stripped = LSTRIP.matcher(template).replaceAll("");
        return TRIM.matcher(stripped).replaceAll("$1$2");
    }

    static String rewrite(String template) {
        Matcher blocks = BLOCK.matcher(blockWhitespace(template));
        StringBuilder out = new StringBuilder();
        while (blocks.find()) {
            blocks.appendReplacement(out, Matcher.quoteReplacement(rewriteBlock(blocks.group())));
        }
        blocks.appendTail(out);
        return out.toString();
    }

    private static String rewriteBlock(String block) {
        String result = outsideStrings(block, code -> {
            String c = REVERSE.matcher(code).replaceAll(m -> Matcher.quoteReplacement(reversed(m.group(1))));
            c = STEP.matcher(c).replaceAll(m -> Matcher.quoteReplacement(
                    "|py_slice(" + orNone(m.group(1)) + ", " + orNone(m.group(2)) + ", " + m.group(3) + ")"));
            c = NOT_IS.matcher(c).replaceAll(m -> Matcher.quoteReplacement(
                    "not (" + m.group(1) + " is " + (m.group(2) == null ? "" : "not ") + m.group(3) + ")"));
            return PY_LITERALS.matcher(c).replaceAll(m -> m.group(1).toLowerCase(java.util.Locale.ROOT));
        });
        // The delimiters' braces are not brackets of the expression.
        return result.substring(0, 2) + parenthesizeNamedArguments(result.substring(2, result.length() - 2))
                + result.substring(result.length() - 2);
    }

    /**
     * {@code f(a=x - 1)} becomes {@code f(a=(x - 1))}: Jinjava binds a named argument tighter than
     * arithmetic, so {@code namespace(i=messages|length - 1)} would subtract from the argument itself.
     */
    static String parenthesizeNamedArguments(String block) {
        StringBuilder out = new StringBuilder(block.length() + 8);
        // Per open parenthesis: whether a named argument's value is open inside it.
        java.util.ArrayDeque<boolean[]> open = new java.util.ArrayDeque<>();
        int i = 0;
        while (i < block.length()) {
            char c = block.charAt(i);
            if (c == '\'' || c == '"') {
                int end = i + 1;
                while (end < block.length() && block.charAt(end) != c) {
                    if (block.charAt(end) == '\\') end++;
                    end++;
                }
                end = Math.min(end + 1, block.length());
                out.append(block, i, end);
                i = end;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                open.push(new boolean[] {false});
                out.append(c);
            } else if ((c == ')' || c == ']' || c == '}') && !open.isEmpty()) {
                if (open.pop()[0]) out.append(')');
                out.append(c);
            } else if (c == ',' && !open.isEmpty() && open.peek()[0]) {
                out.append(')').append(c);
                open.peek()[0] = false;
            } else if (c == '=' && !open.isEmpty() && isNamedArgumentEquals(block, i)) {
                out.append("=(");
                open.peek()[0] = true;
            } else {
                out.append(c);
            }
            i++;
        }
        return out.toString();
    }

    private static boolean isNamedArgumentEquals(String block, int at) {
        char before = at > 0 ? block.charAt(at - 1) : ' ';
        char after = at + 1 < block.length() ? block.charAt(at + 1) : ' ';
        if (after == '=' || before == '=' || before == '!' || before == '<' || before == '>') return false;
        int j = at - 1;
        while (j >= 0 && block.charAt(j) == ' ') j--;
        return j >= 0 && (Character.isLetterOrDigit(block.charAt(j)) || block.charAt(j) == '_');
    }

    private static String reversed(String operand) {
        // A parenthesised operand keeps its parentheses; the reversal applies to its value.
        return operand.equals(")") ? ")|reverse|list" : "(" + operand + "|reverse|list)";
    }

    private static String orNone(String bound) {
        return bound.isEmpty() ? "none" : bound;
    }

    /** Applies {@code change} to the parts of {@code block} outside string literals. */
    private static String outsideStrings(String block, java.util.function.UnaryOperator<String> change) {
        StringBuilder out = new StringBuilder();
        int start = 0;
        int i = 0;
        while (i < block.length()) {
            char c = block.charAt(i);
            if (c == '\'' || c == '"') {
                out.append(change.apply(block.substring(start, i)));
                int end = i + 1;
                while (end < block.length() && block.charAt(end) != c) {
                    if (block.charAt(end) == '\\') end++;
                    end++;
                }
                end = Math.min(end + 1, block.length());
                out.append(block, i, end);
                i = end;
                start = end;
            } else {
                i++;
            }
        }
        out.append(change.apply(block.substring(start)));
        return out.toString();
    }
}
