package panamax.engine.plan;

import java.util.List;

/**
 * KV bytes of a set of planned layers as a function of context, and the longest context that fits
 * a budget. Each layer contributes {@code storedTokens(context) × bytesPerToken}, so windowed
 * layers stop growing at their window.
 */
final class MemoryProjection {
    /** Stands for "no limit": every layer is bounded and the plateau fits the budget. */
    static final long UNBOUNDED = Long.MAX_VALUE;
    /** Contexts are searched up to 2^40 tokens; a budget that holds that many is treated as unbounded. */
    private static final long SEARCH_LIMIT = 1L << 40;

    private final List<LayerChoice> layers;

    MemoryProjection(List<LayerChoice> layers) {
        this.layers = List.copyOf(layers);
    }

    /** Bytes of one row at {@code context} tokens, saturating at {@link Long#MAX_VALUE}. */
    long bytesPerRow(long context) {
        long total = 0;
        for (LayerChoice layer : layers) {
            long b = layer.bytesAt(context);
            if (b > Long.MAX_VALUE - total) return Long.MAX_VALUE;
            total += b;
        }
        return total;
    }

    /** Bytes of {@code rows} rows at {@code context} tokens, saturating. */
    long bytes(long context, int rows) {
        try {
            return Math.multiplyExact(bytesPerRow(context), (long) rows);
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    /** Bytes the next token adds to one row at {@code context}: only layers still growing count. */
    long marginalBytesPerToken(long context) {
        long total = 0;
        for (LayerChoice layer : layers) {
            if (layer.storedAt(context + 1) > layer.storedAt(context)) total += layer.bytesPerToken();
        }
        return total;
    }

    /** Whether every layer keeps a bounded number of tokens, read from the layouts' storedTokens. */
    boolean allBounded() {
        return layers.stream().allMatch(l -> l.storedAt(SEARCH_LIMIT) < SEARCH_LIMIT);
    }

    /**
     * The longest context per row for which {@code rows} rows fit {@code budget} bytes at every
     * length up to it, or {@link #UNBOUNDED} when every context does. Bytes grow with context except
     * where a delayed layout converts to its codec; the search runs on each monotone piece.
     */
    long maxContext(long budget, int rows) {
        if (bytes(0, rows) > budget) return 0;
        long start = layers.stream().mapToLong(LayerChoice::quantizedStart).max().orElse(-1);
        long lo = 0;
        if (start >= 0) {
            if (bytes(start, rows) > budget) return search(0, start, budget, rows);
            lo = start;
        }
        if (bytes(SEARCH_LIMIT, rows) <= budget) return UNBOUNDED;
        return search(lo, SEARCH_LIMIT, budget, rows);
    }

    /** Largest c in [lo, hi) with bytes(c) within budget, given bytes(lo) fits, bytes(hi) does not, and monotone between. */
    private long search(long lo, long hi, long budget, int rows) {
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (bytes(mid, rows) <= budget) lo = mid;
            else hi = mid;
        }
        return lo;
    }
}
