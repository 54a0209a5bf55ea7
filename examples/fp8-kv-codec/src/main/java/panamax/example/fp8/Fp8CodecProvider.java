package panamax.example.fp8;

import java.util.List;
import java.util.Optional;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.DType;

/**
 * The {@code fp8} codec plugin: keys and values as FP8 E4M3 codes with one f32 scale per token and
 * head ({@code amax / 448}). It takes no parameters. Stateless and thread-safe.
 */
public final class Fp8CodecProvider implements KvCodecProvider {
    /** The id users pass to {@code --kv-codec}. */
    public static final String ID = "fp8";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public KvCodecCapabilities capabilities() {
        return KvCodecCapabilities.builder("FP8 E4M3 with one f32 scale per token and head (an example third-party plugin)")
                .build();
    }

    /** Planes of one key or value: {@code codes} U8 {@code [headDim]} and {@code scale} F32 {@code [1]}. */
    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        List<PlaneSpec> planes = List.of(new PlaneSpec("codes", headDim, DType.U8), new PlaneSpec("scale", 1, DType.F32));
        return new CodecShape(headDim, planes, planes);
    }

    /**
     * Each element is rounded once in E4M3 after scaling by amax/448: within 2^-4 of itself in the
     * normal range, within half a subnormal step (2^-10·scale ≤ 2^-10·‖x‖/448) below it. Over a
     * vector: 2^-4 + √headDim·2^-10/448 relative; the f32 scale and product and the rounding to the
     * activation dtype add their unit roundoffs.
     */
    @Override
    public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activationType) {
        double activation = switch (activationType) {
            case BF16 -> 0x1p-8;
            case F16 -> 0x1p-11;
            default -> 0x1p-24;
        };
        double relative = 0x1p-4 + Math.sqrt(headDim) * 0x1p-10 / E4M3.MAX + (activation + 0x1p-22) * (1 + 0x1p-4);
        return Optional.of(ReconstructionBound.relative(relative));
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        return new Fp8Codec(shape(params, context.headDim()), context.activationType());
    }
}
