package panamax.models.template;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Python {@code str} methods that Hugging Face chat templates call ({@code .strip()},
 * {@code .startswith()}, {@code .split()}…), with Python's semantics rather than Java's (e.g.
 * {@code split} takes a literal separator, not a regex). Stateless; thread-safe.
 */
final class PythonStrings {
    static final Set<String> METHODS = Set.of("strip", "lstrip", "rstrip", "startswith", "endswith", "split",
            "rsplit", "splitlines", "upper", "lower", "replace", "title", "capitalize", "find", "rfind", "count",
            "join", "isdigit", "isalpha", "isspace", "isupper", "islower", "zfill", "center", "ljust", "rjust", "format");

    private PythonStrings() {
    }

    /** The result of {@code s.method(args)}, or empty when {@code method} is not a Python str method. */
    static Optional<Object> invoke(String s, String method, Object[] args) {
        if (!METHODS.contains(method)) return Optional.empty();
        Object[] a = args == null ? new Object[0] : args;
        Object result = switch (method) {
            case "strip" -> rstrip(lstrip(s, chars(a)), chars(a));
            case "lstrip" -> lstrip(s, chars(a));
            case "rstrip" -> rstrip(s, chars(a));
            case "startswith" -> matchesAny(a, p -> s.startsWith(p));
            case "endswith" -> matchesAny(a, p -> s.endsWith(p));
            case "split" -> split(s, a.length > 0 ? a[0] : null, a.length > 1 ? toInt(a[1]) : -1);
            case "rsplit" -> rsplit(s, a.length > 0 ? a[0] : null, a.length > 1 ? toInt(a[1]) : -1);
            case "splitlines" -> List.of(s.split("\\r\\n|\\n|\\r", -1)).subList(0, s.isEmpty() ? 0 : lineCount(s));
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "replace" -> replace(s, str(a, 0), str(a, 1), a.length > 2 ? toInt(a[2]) : -1);
            case "title" -> title(s);
            case "capitalize" -> s.isEmpty() ? s : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
            case "find" -> s.indexOf(str(a, 0));
            case "rfind" -> s.lastIndexOf(str(a, 0));
            case "count" -> count(s, str(a, 0));
            case "join" -> join(s, a.length > 0 ? a[0] : List.of());
            case "isdigit" -> !s.isEmpty() && s.chars().allMatch(Character::isDigit);
            case "isalpha" -> !s.isEmpty() && s.chars().allMatch(Character::isLetter);
            case "isspace" -> !s.isEmpty() && s.chars().allMatch(Character::isWhitespace);
            case "isupper" -> !s.equals(s.toLowerCase(Locale.ROOT)) && s.equals(s.toUpperCase(Locale.ROOT));
            case "islower" -> !s.equals(s.toUpperCase(Locale.ROOT)) && s.equals(s.toLowerCase(Locale.ROOT));
            case "zfill" -> pad(s, toInt(a[0]), '0', true);
            case "rjust" -> pad(s, toInt(a[0]), a.length > 1 ? str(a, 1).charAt(0) : ' ', true);
            case "ljust" -> pad(s, toInt(a[0]), a.length > 1 ? str(a, 1).charAt(0) : ' ', false);
            case "center" -> center(s, toInt(a[0]));
            case "format" -> format(s, a);
            default -> throw new IllegalStateException("unhandled str method " + method);
        };
        return Optional.of(result);
    }

    private static String chars(Object[] a) {
        return a.length == 0 || a[0] == null ? null : a[0].toString();
    }

    private static String str(Object[] a, int i) {
        if (i >= a.length || a[i] == null) throw new IllegalArgumentException("str method needs argument " + (i + 1));
        return a[i].toString();
    }

    private static int toInt(Object o) {
        if (o instanceof Number n) return n.intValue();
        throw new IllegalArgumentException("expected an integer argument, found " + o);
    }

    private static boolean strips(String chars, char c) {
        return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
    }

    static String lstrip(String s, String chars) {
        int i = 0;
        while (i < s.length() && strips(chars, s.charAt(i))) i++;
        return s.substring(i);
    }

    static String rstrip(String s, String chars) {
        int j = s.length();
        while (j > 0 && strips(chars, s.charAt(j - 1))) j--;
        return s.substring(0, j);
    }

    private static boolean matchesAny(Object[] a, java.util.function.Predicate<String> test) {
        if (a.length == 0) throw new IllegalArgumentException("startswith/endswith need an argument");
        if (a[0] instanceof Collection<?> options) {
            return options.stream().anyMatch(o -> test.test(String.valueOf(o)));
        }
        return test.test(String.valueOf(a[0]));
    }

    static List<String> split(String s, Object sep, int maxSplit) {
        List<String> parts = new ArrayList<>();
        if (sep == null) {
            // Python's split() without a separator splits on runs of whitespace and drops empty ends.
            String rest = lstrip(s, null);
            while (!rest.isEmpty()) {
                if (maxSplit >= 0 && parts.size() == maxSplit) {
                    parts.add(rest);
                    return parts;
                }
                int end = 0;
                while (end < rest.length() && !Character.isWhitespace(rest.charAt(end))) end++;
                parts.add(rest.substring(0, end));
                rest = lstrip(rest.substring(end), null);
            }
            return parts;
        }
        String separator = sep.toString();
        if (separator.isEmpty()) throw new IllegalArgumentException("split: empty separator");
        int from = 0;
        while (maxSplit < 0 || parts.size() < maxSplit) {
            int at = s.indexOf(separator, from);
            if (at < 0) break;
            parts.add(s.substring(from, at));
            from = at + separator.length();
        }
        parts.add(s.substring(from));
        return parts;
    }

    private static List<String> rsplit(String s, Object sep, int maxSplit) {
        if (sep == null || maxSplit < 0) return split(s, sep, maxSplit);
        String separator = sep.toString();
        List<String> parts = new ArrayList<>();
        int end = s.length();
        while (parts.size() < maxSplit) {
            int at = s.lastIndexOf(separator, end - separator.length());
            if (at < 0) break;
            parts.addFirst(s.substring(at + separator.length(), end));
            end = at;
        }
        parts.addFirst(s.substring(0, end));
        return parts;
    }

    private static int lineCount(String s) {
        String[] lines = s.split("\\r\\n|\\n|\\r", -1);
        // A trailing line break does not start a new (empty) line in Python.
        return lines[lines.length - 1].isEmpty() ? lines.length - 1 : lines.length;
    }

    private static String replace(String s, String old, String replacement, int count) {
        if (count < 0) return s.replace(old, replacement);
        StringBuilder out = new StringBuilder();
        int from = 0;
        for (int done = 0; done < count; done++) {
            int at = s.indexOf(old, from);
            if (at < 0) break;
            out.append(s, from, at).append(replacement);
            from = at + old.length();
        }
        return out.append(s.substring(from)).toString();
    }

    private static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean previousCased = false;
        for (char c : s.toCharArray()) {
            out.append(previousCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
            previousCased = Character.isLetter(c);
        }
        return out.toString();
    }

    private static int count(String s, String sub) {
        if (sub.isEmpty()) return s.length() + 1;
        int n = 0;
        for (int at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length())) n++;
        return n;
    }

    private static String join(String separator, Object items) {
        if (!(items instanceof Iterable<?> iterable)) throw new IllegalArgumentException("join needs a list, found " + items);
        StringBuilder out = new StringBuilder();
        boolean first = true;
        for (Object item : iterable) {
            if (!first) out.append(separator);
            out.append(item);
            first = false;
        }
        return out.toString();
    }

    private static String pad(String s, int width, char fill, boolean left) {
        if (s.length() >= width) return s;
        String padding = String.valueOf(fill).repeat(width - s.length());
        return left ? padding + s : s + padding;
    }

    private static String center(String s, int width) {
        if (s.length() >= width) return s;
        int total = width - s.length();
        int left = total / 2 + (total & width & 1);
        return " ".repeat(left) + s + " ".repeat(total - left);
    }

    private static String format(String s, Object[] args) {
        StringBuilder out = new StringBuilder();
        int next = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '{' && i + 1 < s.length() && s.charAt(i + 1) == '}') {
                out.append(next < args.length ? args[next++] : "");
                i++;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
