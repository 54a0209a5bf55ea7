package panamax.engine.generate;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws token ids from logits under one row's {@link SamplingParams}: repetition penalty, then
 * greedy argmax at temperature 0, else temperature, top-k, top-p and min-p filters and a draw from
 * the renormalized distribution. Holds the row's random stream, so a sampler is used by one row
 * and one thread; the same seed gives the same draws.
 */
public final class Sampler {
    private final SamplingParams params;
    private final SplittableRandom random;
    private double[] scratch;

    public Sampler(SamplingParams params) {
        this.params = params;
        this.random = new SplittableRandom(params.seed());
    }

    public SamplingParams params() {
        return params;
    }

    /**
     * The next token for the logits {@code logits[from, from + vocab)} given the row's
     * {@code history} (prompt and generated ids, oldest first; only the last
     * {@code repetitionContext} count). The logits are not modified.
     */
    public int next(float[] logits, int from, int vocab, int[] history, int historyLength) {
        return next(logits, from, vocab, history, historyLength, null);
    }

    /**
     * As {@link #next(float[], int, int, int[], int)} among the ids set in {@code allowed} (one bit
     * per id, {@code allowed[id >> 6] >>> id & 1}; null allows every id): the others are removed
     * before the penalty, temperature and filters, as a grammar constraint requires.
     */
    public int next(float[] logits, int from, int vocab, int[] history, int historyLength, long[] allowed) {
        if (allowed != null && params.isGreedy() && params.repetitionPenalty() == 1) {
            int best = -1;
            for (int w = 0; w < allowed.length; w++) {
                for (long bits = allowed[w]; bits != 0; bits &= bits - 1) {
                    int id = w << 6 | Long.numberOfTrailingZeros(bits);
                    if (id >= vocab) break;
                    if (best < 0 || logits[from + id] > logits[from + best]) best = id;
                }
            }
            if (best < 0) throw new IllegalStateException("the allowed ids hold none below the vocabulary size " + vocab);
            return best;
        }
        if (params.isGreedy() && params.repetitionPenalty() == 1) {
            int best = from;
            for (int i = from + 1; i < from + vocab; i++) if (logits[i] > logits[best]) best = i;
            return best - from;
        }
        double[] scores = scratch(vocab);
        for (int i = 0; i < vocab; i++) scores[i] = logits[from + i];
        if (allowed != null) {
            // models pad their vocabulary past the tokenizer's (Qwen: 151,936 rows for 151,669 tokens): ids past the mask are not allowed
            for (int i = 0; i < vocab; i++) if (i >>> 6 >= allowed.length || (allowed[i >>> 6] >>> i & 1) == 0) scores[i] = Double.NEGATIVE_INFINITY;
        }
        penalize(scores, history, historyLength, params);
        if (params.isGreedy()) return argmax(scores);
        if (unfiltered(params, vocab)) return drawWeighted(scores, params.temperature(), random.nextDouble());
        return draw(probabilities(scores, params), random.nextDouble());
    }

    /** This row's score array of {@code vocab} values, reused from token to token (a sampler serves one thread). */
    private double[] scratch(int vocab) {
        if (scratch == null || scratch.length != vocab) scratch = new double[vocab];
        return scratch;
    }

    /** No top-k, top-p or min-p filter applies: the draw needs only the softmax's weights. */
    private static boolean unfiltered(SamplingParams params, int vocab) {
        return (params.topK() <= 0 || params.topK() >= vocab) && params.topP() >= 1 && params.minP() <= 0;
    }

    /**
     * The token {@link #draw} would pick from {@link #probabilities} with no filter: the first whose cumulative weight
     * {@code exp((s − max) / T)} exceeds {@code u} times their total, which is the same point of the same distribution
     * without its two normalizing passes (divisions of every probability, and a sum); the rounding of the two forms
     * differs only within an ulp of a boundary. Overwrites {@code scores} with the weights.
     */
    static int drawWeighted(double[] scores, double temperature, double u) {
        double max = Double.NEGATIVE_INFINITY;
        for (double s : scores) max = Math.max(max, s);
        double total = 0;
        for (int i = 0; i < scores.length; i++) {
            scores[i] = Math.exp((scores[i] - max) / temperature);
            total += scores[i];
        }
        return draw(scores, u * total); // the cumulative walk over weights instead of probabilities
    }

    /**
     * The distribution {@link #next} draws from at these logits (repetition penalty and filters
     * applied, renormalized), or null when this sampler is greedy. Speculative decoding's rejection
     * rule compares it with the drafter's.
     */
    public double[] distribution(float[] logits, int from, int vocab, int[] history, int historyLength) {
        if (params.isGreedy()) return null;
        double[] scores = new double[vocab];
        for (int i = 0; i < vocab; i++) scores[i] = logits[from + i];
        penalize(scores, history, historyLength, params);
        return probabilities(scores, params);
    }

    /** The next number of this row's random stream, in [0, 1). */
    public double uniform() {
        return random.nextDouble();
    }

    /** The index whose cumulative probability (or weight, against a target in their total's units) first exceeds {@code u} (zeros skipped). */
    public static int draw(double[] p, double u) {
        double cumulative = 0;
        int last = -1;
        for (int i = 0; i < p.length; i++) {
            if (p[i] == 0) continue;
            cumulative += p[i];
            last = i;
            if (u < cumulative) return i;
        }
        return last; // rounding left u just above the total
    }

    /** Applies the repetition penalty in place (Hugging Face's rule), once per distinct token. */
    static void penalize(double[] scores, int[] history, int historyLength, SamplingParams params) {
        if (params.repetitionPenalty() == 1 || params.repetitionContext() == 0) return;
        boolean[] seen = new boolean[scores.length];
        for (int i = Math.max(0, historyLength - params.repetitionContext()); i < historyLength; i++) {
            int id = history[i];
            if (id < 0 || id >= scores.length || seen[id]) continue;
            seen[id] = true;
            scores[id] = scores[id] > 0 ? scores[id] / params.repetitionPenalty() : scores[id] * params.repetitionPenalty();
        }
    }

    /** The filtered, renormalized distribution sampling draws from (temperature > 0). */
    static double[] probabilities(double[] scores, SamplingParams params) {
        int vocab = scores.length;
        double max = Double.NEGATIVE_INFINITY;
        for (double s : scores) max = Math.max(max, s);
        double[] p = new double[vocab];
        double total = 0;
        for (int i = 0; i < vocab; i++) {
            p[i] = Math.exp((scores[i] - max) / params.temperature());
            total += p[i];
        }
        for (int i = 0; i < vocab; i++) p[i] /= total;
        if (params.topK() > 0 && params.topK() < vocab) {
            Integer[] top = mostLikely(p, params.topK(), 0);
            boolean[] keep = new boolean[vocab];
            for (int i : top) keep[i] = true;
            for (int i = 0; i < vocab; i++) if (!keep[i]) p[i] = 0;
        }
        if (params.topP() < 1) {
            // Tokens below epsilon can never enter the nucleus: the tokens at or above it already
            // hold more than 1 - vocab * epsilon > top_p of the mass. So only those are sorted.
            double epsilon = (1 - params.topP()) / (2.0 * vocab);
            Integer[] order = mostLikely(p, vocab, epsilon * sum(p));
            double target = params.topP() * sum(p);
            double cumulative = 0;
            int r = 0;
            // Keep the most likely tokens until their mass reaches top_p: the smallest such set.
            while (r < order.length && cumulative < target) cumulative += p[order[r++]];
            boolean[] keep = new boolean[vocab];
            for (int i = 0; i < r; i++) keep[order[i]] = true;
            for (int i = 0; i < vocab; i++) if (!keep[i]) p[i] = 0;
        }
        if (params.minP() > 0) {
            double best = 0;
            for (double v : p) best = Math.max(best, v);
            double floor = params.minP() * best;
            for (int i = 0; i < vocab; i++) if (p[i] < floor) p[i] = 0;
        }
        double kept = sum(p);
        for (int i = 0; i < vocab; i++) p[i] /= kept;
        return p;
    }

    static int argmax(double[] scores) {
        int best = 0;
        for (int i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i;
        return best;
    }

    private static double sum(double[] p) {
        double s = 0;
        for (double v : p) s += v;
        return s;
    }

    /**
     * Up to {@code k} indices of probabilities at least {@code floor}, by decreasing probability;
     * ties keep the lower id first so results are deterministic.
     */
    private static Integer[] mostLikely(double[] p, int k, double floor) {
        java.util.Comparator<Integer> likelierFirst = (a, b) -> p[a] != p[b] ? Double.compare(p[b], p[a]) : Integer.compare(a, b);
        // A bounded heap whose head is the least likely kept index: O(vocab log k).
        java.util.PriorityQueue<Integer> heap = new java.util.PriorityQueue<>(Math.min(k, p.length) + 1, likelierFirst.reversed());
        for (int i = 0; i < p.length; i++) {
            if (p[i] < floor || p[i] == 0) continue;
            if (heap.size() < k) {
                heap.add(i);
            } else if (likelierFirst.compare(i, heap.peek()) < 0) {
                heap.poll();
                heap.add(i);
            }
        }
        Integer[] order = heap.toArray(new Integer[0]);
        Arrays.sort(order, likelierFirst);
        return order;
    }
}
