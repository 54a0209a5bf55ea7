package panamax.engine.serve;

import java.util.List;
import panamax.engine.generate.ForwardPass;
import panamax.engine.generate.LeftPaddedPrompts;
import panamax.engine.runtime.LayerCaches;

/**
 * Requests admitted together whose prompts are being prefilled, a chunk per scheduler step, on
 * caches of their own; once complete they join the running batch. Owns its caches until then.
 */
final class PrefillCohort implements AutoCloseable {
    final LayerCaches caches;
    final List<ServingRow> rows;
    private final LeftPaddedPrompts prompts;
    private int done;

    /**
     * @param caches  empty caches of {@code rows.size()} rows, or one row already holding the first
     *                {@code cached} prompt tokens (a prefix-cache hit); taken over
     */
    PrefillCohort(LayerCaches caches, List<ServingRow> rows, int cached) {
        this.caches = caches;
        this.rows = List.copyOf(rows);
        int[][] remaining = new int[rows.size()][];
        for (int r = 0; r < remaining.length; r++) {
            int[] ids = rows.get(r).request.generation().promptIds();
            remaining[r] = java.util.Arrays.copyOfRange(ids, cached, ids.length);
        }
        this.prompts = LeftPaddedPrompts.of(remaining);
        // planned even without padding: a bounded layout then takes every pass, a last one of one column included, in
        // time order, so a prompt cut into passes (by the chunk, or by the pacer's time) attends over its keys as in one pass
        caches.preparePrefill(prompts.lengths(), prompts.left(), new int[remaining.length]);
    }

    /**
     * Prefills the next columns, at most {@code chunk} tokens over all rows (at least one column),
     * so that a decode step of the running rows never waits for more than one chunk; returns the
     * last column's logits {@code [rows * vocab]} once every prompt is in the cache, else null.
     */
    float[] step(ForwardPass forward, int chunk) {
        int n = columns(chunk);
        boolean last = done + n == prompts.width();
        float[] logits = forward.run(caches, prompts.columns(done, n), prompts.rows(), n, last);
        done += n;
        if (last) caches.finalizePrefill();
        return logits;
    }

    /** Prompt tokens the next {@link #step} with this {@code chunk} prefills, over all rows (padding included). */
    int tokens(int chunk) {
        return columns(chunk) * prompts.rows();
    }

    private int columns(int chunk) {
        return Math.min(Math.max(1, chunk / prompts.rows()), prompts.width() - done);
    }

    /** Columns per row this cohort will span once prefilled. */
    int width() {
        return caches.width() + prompts.width() - done;
    }

    @Override
    public void close() {
        caches.close();
    }
}
