package panamax.engine.generate;

/**
 * Prompts of different lengths laid out as one left-padded id matrix {@code [rows, width]}, with
 * what {@link panamax.api.kv.KvLayout#preparePrefill} needs to mask the padding.
 *
 * @param ids     row-major ids, padding columns first in each row
 * @param rows    number of prompts
 * @param width   the longest prompt's length
 * @param lengths per row, its real tokens
 * @param left    per row, its padding columns
 */
public record LeftPaddedPrompts(int[] ids, int rows, int width, int[] lengths, int[] left) {
    /** Padding id for left-padded columns; masked out by the layouts, so any valid id works. */
    public static final int PAD_ID = 0;

    /** Lays out {@code prompts} (each at least one id). */
    public static LeftPaddedPrompts of(int[][] prompts) {
        int rows = prompts.length, width = 0;
        for (int[] p : prompts) width = Math.max(width, p.length);
        int[] ids = new int[rows * width], lengths = new int[rows], left = new int[rows];
        for (int r = 0; r < rows; r++) {
            lengths[r] = prompts[r].length;
            left[r] = width - lengths[r];
            java.util.Arrays.fill(ids, r * width, r * width + left[r], PAD_ID);
            System.arraycopy(prompts[r], 0, ids, r * width + left[r], lengths[r]);
        }
        return new LeftPaddedPrompts(ids, rows, width, lengths, left);
    }

    /** Whether any row is padded (then the layouts must be told before the prefill). */
    public boolean padded() {
        for (int l : left) if (l > 0) return true;
        return false;
    }

    /** Columns {@code [from, from + n)} of every row, row-major {@code [rows, n]}. */
    public int[] columns(int from, int n) {
        int[] chunk = new int[rows * n];
        for (int r = 0; r < rows; r++) System.arraycopy(ids, r * width + from, chunk, r * n, n);
        return chunk;
    }
}
