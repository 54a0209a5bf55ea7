package panamax.kv.codecs.turboquant;

import java.util.List;
import java.util.Optional;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.DType;
import panamax.kv.codecs.internal.CodecParams;
import panamax.kv.codecs.internal.Rounding;

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
        return KvCodecCapabilities.builder(
                        "TurboQuant: random Hadamard rotation + Lloyd-Max codebooks, separate key/value bits, optional QJL keys")
                .params(PARAMS).attentionOnPlanes(true).rotatedValues(true)
                .build();
    }

    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        return TurboQuantConfig.from(CodecParams.resolve(ID, params, PARAMS), headDim).shape();
    }

    /**
     * The direction's error is the codebook's worst case over unit vectors of the padded dimension
     * ({@link WorstCaseError}); the norm is stored apart and the rotation is orthogonal, so that is
     * the relative error. QJL keys add the sketch's reconstruction of the residual r, of norm
     * ‖r‖·scale·√n (S orthogonal, z = ±1), to the residual left by key_bits − 1 codebook bits.
     * f32 arithmetic adds 1e-5 and the output's rounding to the activation dtype its unit roundoff.
     */
    @Override
    public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activationType) {
        TurboQuantConfig config = TurboQuantConfig.from(CodecParams.resolve(ID, params, PARAMS), headDim);
        int n = config.paddedDim();
        double values = WorstCaseError.ofUnitVector(LloydMaxCodebook.of(n, config.valueBits()), n);
        double residual = config.keyCodeBits() == 0 ? 1 : WorstCaseError.ofUnitVector(LloydMaxCodebook.of(n, config.keyCodeBits()), n);
        double keys = config.qjl() ? residual * (1 + QjlProjection.scaleFor(n) * Math.sqrt(n)) : residual;
        double u = Rounding.unitRoundoff(activationType);
        return Optional.of(new ReconstructionBound(keys * (1 + u) + u + 1e-5, values * (1 + u) + u + 1e-5, 0));
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        return new TurboQuantCodec(TurboQuantConfig.from(CodecParams.resolve(ID, params, PARAMS), context.headDim()), context);
    }
}
