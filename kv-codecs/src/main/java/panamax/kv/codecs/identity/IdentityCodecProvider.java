package panamax.kv.codecs.identity;

import java.util.List;
import java.util.Locale;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.DType;
import panamax.kv.codecs.internal.CodecParams;

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
        return new KvCodecCapabilities("keys and values stored unchanged in bf16, f16 or f32", PARAMS, true, false);
    }

    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        if (headDim <= 0) throw new IllegalArgumentException("head dim must be positive, found " + headDim);
        DType dtype = dtype(CodecParams.resolve(ID, params, PARAMS));
        List<PlaneSpec> planes = List.of(new PlaneSpec("values", headDim, dtype));
        return new CodecShape(headDim, planes, planes);
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
