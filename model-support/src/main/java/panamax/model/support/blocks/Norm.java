package panamax.model.support.blocks;

import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;

/**
 * A normalization over the last axis: RMSNorm ({@code x / rms(x) · w}) or LayerNorm
 * ({@code (x − mean) / std · w + b}). Owns its tensors. Thread-safe for concurrent {@link #apply}.
 *
 * @param weight {@code [hidden]}
 * @param bias   {@code [hidden]} for LayerNorm, null for RMSNorm
 * @param eps    added to the variance
 */
public record Norm(Tensor weight, Tensor bias, double eps) implements AutoCloseable {
    /** RMSNorm; takes ownership of {@code weight}. */
    public static Norm rms(Tensor weight, double eps) {
        return new Norm(weight, null, eps);
    }

    /** LayerNorm; takes ownership of {@code weight} and {@code bias}. */
    public static Norm layer(Tensor weight, Tensor bias, double eps) {
        return new Norm(weight, bias, eps);
    }

    /** {@code x [..., hidden]} (borrowed) normalized, new. */
    public Tensor apply(Ops ops, Tensor x) {
        return bias == null ? ops.rmsNorm(x, weight, eps) : ops.layerNorm(x, weight, bias, eps);
    }

    @Override
    public void close() {
        weight.close();
        if (bias != null) bias.close();
    }
}
