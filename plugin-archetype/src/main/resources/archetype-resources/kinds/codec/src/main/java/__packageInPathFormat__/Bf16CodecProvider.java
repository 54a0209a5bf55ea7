package ${package};

import java.util.List;
import java.util.Optional;
import panamax.api.error.InvalidParameterException;
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
 * The {@code ${pluginId}} codec: keys and values stored in bfloat16, one plane {@code values [headDim]}
 * per token and head. It takes no parameters. panamax instantiates the provider at every discovery,
 * so it only declares; {@link Bf16Codec} does the work. Stateless and thread-safe.
 */
public final class Bf16CodecProvider implements KvCodecProvider {
    /** The id users pass to {@code --kv-codec}. */
    public static final String ID = "${pluginId}";

    @Override
    public String id() {
        return ID;
    }

    /** What {@code panamax plugins} shows and the planner reads: no parameters, attention through decode. */
    @Override
    public KvCodecCapabilities capabilities() {
        return new KvCodecCapabilities("keys and values stored in bfloat16 (${artifactId})", List.of(), false, false);
    }

    /** The planes of one key or value vector; the planner sizes the cache from them before anything runs. */
    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        if (headDim <= 0) throw new InvalidParameterException("head dim", headDim, "a positive number");
        List<PlaneSpec> planes = List.of(new PlaneSpec("values", headDim, DType.BF16));
        return new CodecShape(headDim, planes, planes);
    }

    /**
     * The error the format guarantees, derived from its maths (the conformance kit checks it): one
     * rounding to nearest into bfloat16's 8 significant bits is within 2^-8 of each element, so of
     * each vector; bf16 activations are stored as they are. Widening back into f16 activations
     * rounds values below f16's normal range to its 2^-24 spacing: 2^-25 per element on top.
     */
    @Override
    public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activationType) {
        return Optional.of(switch (activationType) {
            case BF16 -> ReconstructionBound.exact();
            case F32 -> ReconstructionBound.relative(0x1p-8);
            case F16 -> new ReconstructionBound(0x1p-8, 0x1p-8, 0x1p-25);
            default -> throw new InvalidParameterException("activation dtype", activationType, "f32, bf16, f16");
        });
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        return new Bf16Codec(shape(params, context.headDim()), context.activationType());
    }
}
