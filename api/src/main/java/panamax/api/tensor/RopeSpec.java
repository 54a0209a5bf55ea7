package panamax.api.tensor;

import java.util.Optional;

/**
 * How rotary position embedding rotates the first {@code dims} features of each head.
 *
 * @param dims        number of features rotated (even, at most the head dimension)
 * @param base        frequency base θ; ignored when {@code frequencies} is present
 * @param traditional true: rotate adjacent pairs (2i, 2i+1); false: rotate halves (i, i + dims/2) as HF does
 * @param scale       positions are multiplied by this before rotation (linear scaling; 1 for none)
 * @param frequencies explicit inverse frequencies, {@code dims/2} of them (used by scaled variants
 *                    such as Llama 3.1's), replacing {@code base^(-2i/dims)}
 */
public record RopeSpec(int dims, double base, boolean traditional, double scale, Optional<float[]> frequencies) {
    public RopeSpec {
        if (dims <= 0 || dims % 2 != 0) throw new IllegalArgumentException("rope dims must be positive and even, found " + dims);
        if (frequencies.isPresent() && frequencies.get().length != dims / 2) {
            throw new IllegalArgumentException("rope frequencies: expected " + dims / 2 + ", found " + frequencies.get().length);
        }
        frequencies = frequencies.map(float[]::clone);
    }

    /** Classic RoPE as Hugging Face applies it (rotating halves). */
    public static RopeSpec of(int dims, double base) {
        return new RopeSpec(dims, base, false, 1.0, Optional.empty());
    }

    /** Inverse frequency of pair {@code i}: explicit, or {@code base^(-2i/dims)}. */
    public double inverseFrequency(int i) {
        return frequencies.isPresent() ? frequencies.get()[i] : Math.pow(base, -2.0 * i / dims);
    }
}
