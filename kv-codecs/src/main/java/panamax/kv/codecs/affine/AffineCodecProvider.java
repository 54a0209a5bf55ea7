package panamax.kv.codecs.affine;

import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.DType;
import panamax.kv.codecs.internal.CodecParams;
import panamax.kv.codecs.internal.Rounding;

/**
 * The {@code affine} codec: MLX's affine group quantization along the head dimension, bit for bit
 * ({@link panamax.api.tensor.Ops#quantize}). Planes {@code packed} U32 {@code [headDim·bits/32]},
 * {@code scales} and {@code biases} {@code [headDim/group_size]} in the activation dtype, so 4 bits
 * with groups of 64 on bf16 cost exactly 4 + 2·16/64 = 4.5 bits per element. Attention runs on the
 * planes through {@link panamax.api.tensor.Ops#quantizedMatmul}.
 *
 * <p>{@code bits} defaults to 4: mlx-lm's {@code --kv-bits} has no default (giving it is what turns
 * quantization on), so one had to be picked; 4 bits is the common middle choice.
 */
public final class AffineCodecProvider implements KvCodecProvider {
    public static final String ID = "affine";
    static final int[] BITS = {2, 3, 4, 5, 6, 8};
    static final int[] GROUP_SIZES = {32, 64, 128};

    static final List<ParamSpec> PARAMS = List.of(
            new ParamSpec("bits", "bits per quantized element", CodecParams.strings(BITS), "4"),
            new ParamSpec("group_size", "elements sharing one scale and bias, along the head dimension",
                    CodecParams.strings(GROUP_SIZES), "64"));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public KvCodecCapabilities capabilities() {
        return KvCodecCapabilities.builder(
                        "MLX affine group quantization (bits 2-8, groups of 32/64/128), attention on the packed planes")
                .params(PARAMS).attentionOnPlanes(true)
                .build();
    }

    /** The planes with bf16 scales and biases, the usual activation dtype. */
    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        return shape(params, headDim, DType.BF16);
    }

    @Override
    public CodecShape shape(PluginParams params, int headDim, DType activationType) {
        PluginParams resolved = CodecParams.resolve(ID, params, PARAMS);
        int bits = resolved.getInt("bits");
        int group = resolved.getInt("group_size");
        if (headDim <= 0 || headDim % group != 0) {
            List<String> fitting = IntStream.of(GROUP_SIZES).filter(g -> headDim > 0 && headDim % g == 0)
                    .mapToObj(Integer::toString).toList();
            throw new InvalidParameterException("affine group_size (head dim " + headDim + " must be a multiple of it)",
                    group, fitting.isEmpty()
                            ? "none of 32, 64, 128 divides head dim " + headDim + "; use another codec for this model"
                            : String.join(", ", fitting) + " for head dim " + headDim);
        }
        List<PlaneSpec> planes = List.of(
                new PlaneSpec("packed", headDim * bits / 32, DType.U32),
                new PlaneSpec("scales", headDim / group, activationType),
                new PlaneSpec("biases", headDim / group, activationType));
        return new CodecShape(headDim, planes, planes);
    }

    /**
     * Per group of g elements with range R, MLX's zero-aligned step and upper clamp keep each
     * element within R/2^bits (half a step of R/(2^bits − 1), or the clamped overshoot, whichever
     * is larger); the group holds its min and max, so its norm is at least R/√2, giving
     * √(2g)/2^bits relative. Rounding the scale to the activation dtype (and the product, when
     * dequantized in that dtype) adds √(2g)·2.5·u, the output's rounding 2u; groups whose range is
     * below MLX's 1e-7 floor add half that floor per element.
     */
    @Override
    public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activationType) {
        shape(params, headDim, activationType);
        PluginParams resolved = CodecParams.resolve(ID, params, PARAMS);
        int bits = resolved.getInt("bits");
        int group = resolved.getInt("group_size");
        double u = Rounding.unitRoundoff(activationType);
        double relative = Math.sqrt(2.0 * group) / (1 << bits) + Math.sqrt(2.0 * group) * 2.5 * u + 2 * u;
        return Optional.of(new ReconstructionBound(relative, relative, 0.5e-7));
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        PluginParams resolved = CodecParams.resolve(ID, params, PARAMS);
        CodecShape shape = shape(resolved, context.headDim(), context.activationType());
        return new AffineCodec(shape, resolved.getInt("bits"), resolved.getInt("group_size"), context.activationType(), context.backend());
    }
}
