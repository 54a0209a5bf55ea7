package panamax.kv.codecs.turboquant;

import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;
import panamax.kv.codecs.internal.CodecParams;

/**
 * The {@code turboquant} codec (Zandieh et al., 2025): a seeded randomized Hadamard rotation per
 * (layer, head), the norm kept apart, and each rotated coordinate quantized to the Lloyd-Max
 * codebook of a random unit vector's coordinate; separate key and value bits, and an optional
 * 1-bit QJL residual on keys. Values stay rotated, so a layout must let the codec un-rotate the
 * attention output ({@code rotatedValues}).
 */
public final class TurboQuantCodecProvider implements KvCodecProvider {
    public static final String ID = "turboquant";

    static final List<ParamSpec> PARAMS = List.of(
            new ParamSpec("key_bits", "bits per rotated key coordinate (the QJL bit included when qjl=true)",
                    CodecParams.strings(1, 2, 3, 4, 8), "4"),
            new ParamSpec("value_bits", "bits per rotated value coordinate", CodecParams.strings(1, 2, 3, 4), "4"),
            new ParamSpec("qjl", "spend one key bit on a QJL sketch of the residual (unbiased inner products)",
                    List.of("false", "true"), "false"),
            new ParamSpec("seed", "seed of the random rotations and projections", List.of(), "0"));

    @Override
    public String id() {
        return ID;
    }

    @Override
    public KvCodecCapabilities capabilities() {
        return new KvCodecCapabilities(
                "TurboQuant: random Hadamard rotation + Lloyd-Max codebooks, separate key/value bits, optional QJL keys",
                PARAMS, true, true);
    }

    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        return TurboQuantConfig.from(CodecParams.resolve(ID, params, PARAMS), headDim).shape();
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        return new TurboQuantCodec(TurboQuantConfig.from(CodecParams.resolve(ID, params, PARAMS), context.headDim()), context);
    }
}
