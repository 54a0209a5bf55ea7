package panamax.engine.eval;

import panamax.engine.generate.ModelSession;

/**
 * Held-out perplexity of a model on a token stream: the stream is cut into consecutive,
 * non-overlapping windows of {@code window + 1} tokens; each window's first {@code window} tokens
 * are scored in one forward pass from an empty cache, predicting the next token at every position.
 * The same windows as a PyTorch loop over {@code ids[j·w : j·w + w + 1]} (so the numbers compare
 * with a training script's held-out loss). Log-softmax in double. Stateless.
 */
public final class Perplexity {
    private Perplexity() {
    }

    /** Called after each window with the windows done so far and the total. */
    @FunctionalInterface
    public interface Progress {
        void windowDone(int done, int total);
    }

    /**
     * @param maxWindows the most windows to score (0: all the stream holds)
     * @throws IllegalArgumentException when the stream is shorter than one window
     */
    public static PerplexityReport measure(ModelSession session, int[] ids, int window, int maxWindows, Progress progress) {
        if (window < 1) throw new IllegalArgumentException("window: expected at least 1 token, found " + window);
        int windows = (ids.length - 1) / window;
        if (windows == 0) {
            throw new IllegalArgumentException("the text holds " + ids.length + " tokens, fewer than one window of " + (window + 1));
        }
        if (maxWindows > 0) windows = Math.min(windows, maxWindows);
        int vocab = session.spec().vocabSize();
        double nll = 0;
        for (int w = 0; w < windows; w++) {
            int[] input = java.util.Arrays.copyOfRange(ids, w * window, w * window + window);
            float[] logits = session.scoreLogits(input);
            for (int p = 0; p < window; p++) nll += negativeLogLikelihood(logits, p * vocab, vocab, ids[w * window + p + 1]);
            progress.windowDone(w + 1, windows);
        }
        long tokens = (long) windows * window;
        return new PerplexityReport(tokens, windows, window, nll / tokens);
    }

    /** {@code log Σ exp(row) − row[target]} for the row at {@code offset}. */
    static double negativeLogLikelihood(float[] logits, int offset, int vocab, int target) {
        if (target < 0 || target >= vocab) throw new IllegalArgumentException("token id " + target + " is outside the vocabulary of " + vocab);
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < vocab; i++) max = Math.max(max, logits[offset + i]);
        double sum = 0;
        for (int i = 0; i < vocab; i++) sum += Math.exp(logits[offset + i] - max);
        return max + Math.log(sum) - logits[offset + target];
    }
}
