package panamax.engine.generate;

/**
 * What one row generated.
 *
 * @param tokens the generated ids, including a final stop id or the tokens of a stop string
 * @param text   the generated text, without special tokens and without the stop string (empty without a tokenizer)
 * @param finish why generation stopped
 */
public record GenerationResult(int[] tokens, String text, FinishReason finish) {
    public GenerationResult {
        tokens = tokens.clone();
    }
}
