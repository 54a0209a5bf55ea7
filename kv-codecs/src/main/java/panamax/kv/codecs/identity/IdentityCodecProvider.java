package panamax.kv.codecs.identity;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
 * The {@code identity} codec: keys and values stored as they are, in {@code dtype} (bf16 by
 * default, f16 or f32 on request), one plane {@code values [headDim]}. It is a codec like the
 * others, so layouts never special-case full precision.
 */
public final class IdentityCodecProvider implements KvCodecProvider {
    public static final String ID = "identity";

    static final List<ParamSpec> PARAMS = List.of(
            new ParamSpec("dtype", "storage dtype of keys and values", List.of("bf16", "f16", "f32"), "bf16"));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public KvCodecCapabilities capabilities() {
        return KvCodecCapabilities.builder("keys and values stored unchanged in bf16, f16 or f32")
                .params(PARAMS).attentionOnPlanes(true)
                .build();
    }

    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        if (headDim <= 0) throw new IllegalArgumentException("head dim must be positive, found " + headDim);
        DType dtype = dtype(CodecParams.resolve(ID, params, PARAMS));
        List<PlaneSpec> planes = List.of(new PlaneSpec("values", headDim, dtype));
        return new CodecShape(headDim, planes, planes);
    }

    /**
     * Exact when the storage dtype holds every value of the activation dtype (as wide or wider);
     * otherwise one rounding to the storage dtype, half its spacing relative to each element. f16
     * on either side adds its subnormal spacing (2^-25 per element) for tiny values.
     */
    @Override
    public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activationType) {
        DType storage = dtype(CodecParams.resolve(ID, params, PARAMS));
        double relative = Rounding.precision(storage) < Rounding.precision(activationType) ? Rounding.unitRoundoff(storage) : 0;
        double absolute = storage != activationType && (storage == DType.F16 || activationType == DType.F16) ? 0x1p-25 : 0;
        return Optional.of(new ReconstructionBound(relative, relative, absolute));
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        PluginParams resolved = CodecParams.resolve(ID, params, PARAMS);
        return new IdentityCodec(shape(resolved, context.headDim()), dtype(resolved), context);
    }

    static DType dtype(PluginParams resolved) {
        return DType.valueOf(resolved.get("dtype").toUpperCase(Locale.ROOT));
    }
}
