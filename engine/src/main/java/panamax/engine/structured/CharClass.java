package panamax.engine.structured;

import java.util.Arrays;

/**
 * A set of Unicode code points as sorted, disjoint, inclusive ranges: one terminal of a
 * {@link Grammar}. Immutable; ASCII membership is a bitmap test.
 */
final class CharClass {
    static final int MAX_CODE_POINT = Character.MAX_CODE_POINT;
    /** lo, hi pairs, sorted, disjoint and not adjacent. */
    private final int[] ranges;
    private final long asciiLow;
    private final long asciiHigh;

    private CharClass(int[] ranges) {
        this.ranges = ranges;
        long low = 0, high = 0;
        for (int i = 0; i < ranges.length; i += 2) {
            for (int c = ranges[i]; c <= Math.min(ranges[i + 1], 127); c++) {
                if (c < 64) low |= 1L << c;
                else high |= 1L << (c - 64);
            }
        }
        this.asciiLow = low;
        this.asciiHigh = high;
    }

    /** The single code point {@code c}. */
    static CharClass of(int c) {
        return new CharClass(new int[]{c, c});
    }

    /**
     * The union of {@code pairs} (lo, hi, lo, hi …, each inclusive), or its complement over all
     * code points when {@code negated}.
     */
    static CharClass ofRanges(int[] pairs, boolean negated) {
        int n = pairs.length / 2;
        int[][] sorted = new int[n][];
        for (int i = 0; i < n; i++) sorted[i] = new int[]{pairs[2 * i], pairs[2 * i + 1]};
        Arrays.sort(sorted, (a, b) -> Integer.compare(a[0], b[0]));
        int[] merged = new int[2 * n];
        int m = 0;
        for (int[] r : sorted) {
            if (m > 0 && r[0] <= merged[m - 1] + 1) {
                merged[m - 1] = Math.max(merged[m - 1], r[1]);
            } else {
                merged[m++] = r[0];
                merged[m++] = r[1];
            }
        }
        merged = Arrays.copyOf(merged, m);
        if (!negated) return new CharClass(withoutSurrogates(merged));
        int[] complement = new int[m + 2];
        int k = 0, next = 0;
        for (int i = 0; i < m; i += 2) {
            if (merged[i] > next) {
                complement[k++] = next;
                complement[k++] = merged[i] - 1;
            }
            next = merged[i + 1] + 1;
        }
        if (next <= MAX_CODE_POINT) {
            complement[k++] = next;
            complement[k++] = MAX_CODE_POINT;
        }
        return new CharClass(withoutSurrogates(Arrays.copyOf(complement, k)));
    }

    /** The ranges less U+D800..U+DFFF, which UTF-8 cannot encode: no byte sequence may be kept alive for them. */
    private static int[] withoutSurrogates(int[] ranges) {
        int[] out = new int[ranges.length + 2];
        int k = 0;
        for (int i = 0; i < ranges.length; i += 2) {
            int lo = ranges[i], hi = ranges[i + 1];
            if (lo < 0xD800) {
                out[k++] = lo;
                out[k++] = Math.min(hi, 0xD7FF);
            }
            if (hi > 0xDFFF) {
                out[k++] = Math.max(lo, 0xE000);
                out[k++] = hi;
            }
        }
        return Arrays.copyOf(out, k);
    }

    boolean matches(int c) {
        if (c < 64) return (asciiLow >>> c & 1) != 0;
        if (c < 128) return (asciiHigh >>> (c - 64) & 1) != 0;
        int lo = 0, hi = ranges.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (c < ranges[2 * mid]) hi = mid - 1;
            else if (c > ranges[2 * mid + 1]) lo = mid + 1;
            else return true;
        }
        return false;
    }

    /** Whether some code point in {@code [lo, hi]} is in this class. */
    boolean intersects(int lo, int hi) {
        for (int i = 0; i < ranges.length; i += 2) if (ranges[i] <= hi && ranges[i + 1] >= lo) return true;
        return false;
    }

    boolean isEmpty() {
        return ranges.length == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CharClass c && Arrays.equals(ranges, c.ranges);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ranges);
    }

    /** GBNF spelling, e.g. {@code [a-z0-9]}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < ranges.length; i += 2) {
            s.append(escape(ranges[i]));
            if (ranges[i + 1] != ranges[i]) s.append('-').append(escape(ranges[i + 1]));
        }
        return s.append(']').toString();
    }

    static String escape(int c) {
        return switch (c) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            case '\\' -> "\\\\";
            case ']' -> "\\]";
            case '[' -> "\\[";
            case '-' -> "\\-";
            case '^' -> "\\^";
            case '"' -> "\\\"";
            default -> c < 0x20 || c == 0x7f ? String.format("\\x%02X", c)
                    : c > 0xFFFF ? String.format("\\U%08X", c) : Character.toString(c);
        };
    }
}
