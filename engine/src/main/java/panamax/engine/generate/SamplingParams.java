package panamax.engine.generate;

import panamax.api.error.InvalidParameterException;

/**
 * How the next token is drawn from the logits, in mlx-lm's and Hugging Face's vocabulary.
 *
 * @param temperature        0 for greedy (argmax), else the logits are divided by it
 * @param topK               keep the k most likely tokens; 0 keeps all
 * @param topP               keep the smallest set whose probability reaches p; 1 keeps all
 * @param minP               keep tokens at least {@code minP} times as likely as the most likely; 0 keeps all
 * @param repetitionPenalty  Hugging Face's penalty on tokens already seen (positive logits divided,
 *                           negative ones multiplied); 1 is none
 * @param repetitionContext  how many of the most recent tokens (prompt included) the penalty looks at
 * @param seed               the random seed: the same seed, prompt and parameters give the same tokens
 */
public record SamplingParams(double temperature, int topK, double topP, double minP, double repetitionPenalty,
                             int repetitionContext, long seed) {
    public SamplingParams {
        if (!(temperature >= 0) || Double.isInfinite(temperature)) throw new InvalidParameterException("temperature", temperature, "a finite value >= 0");
        if (topK < 0) throw new InvalidParameterException("top_k", topK, ">= 0 (0 keeps every token)");
        if (!(topP > 0 && topP <= 1)) throw new InvalidParameterException("top_p", topP, "(0, 1]");
        if (!(minP >= 0 && minP <= 1)) throw new InvalidParameterException("min_p", minP, "[0, 1]");
        if (!(repetitionPenalty > 0) || Double.isInfinite(repetitionPenalty)) {
            throw new InvalidParameterException("repetition_penalty", repetitionPenalty, "a finite value > 0 (1 is no penalty)");
        }
        if (repetitionContext < 0) throw new InvalidParameterException("repetition_context", repetitionContext, ">= 0");
    }

    /** Greedy decoding: the argmax at every step. */
    public static SamplingParams greedy() {
        return new SamplingParams(0, 0, 1, 0, 1, 20, 0);
    }

    /** Plain sampling at {@code temperature} with {@code seed} and no filters. */
    public static SamplingParams sample(double temperature, long seed) {
        return new SamplingParams(temperature, 0, 1, 0, 1, 20, seed);
    }

    public boolean isGreedy() {
        return temperature == 0;
    }

    public SamplingParams withTopK(int k) {
        return new SamplingParams(temperature, k, topP, minP, repetitionPenalty, repetitionContext, seed);
    }

    public SamplingParams withTopP(double p) {
        return new SamplingParams(temperature, topK, p, minP, repetitionPenalty, repetitionContext, seed);
    }

    public SamplingParams withMinP(double p) {
        return new SamplingParams(temperature, topK, topP, p, repetitionPenalty, repetitionContext, seed);
    }

    public SamplingParams withRepetitionPenalty(double penalty, int context) {
        return new SamplingParams(temperature, topK, topP, minP, penalty, context, seed);
    }

    public SamplingParams withSeed(long s) {
        return new SamplingParams(temperature, topK, topP, minP, repetitionPenalty, repetitionContext, s);
    }
}
