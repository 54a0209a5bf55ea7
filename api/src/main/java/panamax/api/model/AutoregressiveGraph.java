package panamax.api.model;

import panamax.api.tensor.Tensor;

/**
 * A decoder's forward pass, split so prefill can skip the vocabulary projection for positions it
 * does not need. Tensor arguments are borrowed; results are owned by the caller.
 */
public interface AutoregressiveGraph {
    /**
     * Runs the decoder layers over token ids {@code [B, T]} (I32), appending their keys and values
     * to {@code state}, and returns the final hidden states {@code [B, T, hidden]} (after the final norm).
     */
    Tensor forwardHidden(Tensor ids, KvState state);

    /** Projects {@code hidden [B, T, hidden]} to logits {@code [B, T', vocab]} for the selected positions, in f32. */
    Tensor projectLogits(Tensor hidden, LogitSelection selection);
}
