package panamax.model.support.config;

import java.util.Optional;
import panamax.api.tensor.RopeSpec;

/**
 * Reads a layer's rotary embedding from config.json in either spelling: the newer
 * {@code rope_parameters} (flat, or nested by layer type as Gemma 3 writes it) or the classic
 * {@code rope_theta} + {@code rope_scaling} (+ Gemma's {@code rope_local_base_freq} for sliding
 * layers). Supports rope types {@code default}, {@code linear} and {@code llama3}. Stateless.
 *
 * <p>Hugging Face keeps the inverse frequencies in a module buffer, computed in float32, which is
 * cast with the model: a transformers model cast in memory ({@code model.to(bfloat16)}) rotates by
 * bf16-rounded frequencies, while {@code from_pretrained} keeps them exact. {@link #roundedTo}
 * reproduces the former when a load asks for {@code BufferPrecision.STORED_DTYPE}, so references
 * made that way match instead of drifting by ~1e-3 per logit.
 */
public final class RopeReader {
    private RopeReader() {
    }

    /**
     * The rope of a layer of {@code layerType} ({@code full_attention} or {@code sliding_attention}).
     *
     * @param dims features rotated per head
     */
    public static RopeSpec read(HfConfig config, String layerType, int dims, boolean localBaseForSliding) {
        Optional<HfConfig> parameters = config.child("rope_parameters");
        if (parameters.isPresent()) {
            HfConfig p = parameters.get();
            boolean flat = p.has("rope_type") || p.has("rope_theta");
            HfConfig forLayer = flat ? p : p.child(layerType).orElseThrow(() ->
                    p.bad(layerType, "rope parameters for " + layerType + " layers (or flat rope_theta / rope_type)", "no such field"));
            return spec(forLayer, forLayer.requireDouble("rope_theta"), dims);
        }
        boolean sliding = layerType.equals("sliding_attention");
        if (sliding && localBaseForSliding) {
            return RopeSpec.of(dims, positive(config, "rope_local_base_freq", config.doubleOr("rope_local_base_freq", 10000.0)));
        }
        double theta = positive(config, "rope_theta", config.doubleOr("rope_theta", 10000.0));
        Optional<HfConfig> scaling = config.child("rope_scaling");
        return scaling.isPresent() ? spec(scaling.get(), theta, dims) : RopeSpec.of(dims, theta);
    }

    /**
     * {@code spec} with explicit inverse frequencies rounded to {@code dtype} (nearest, ties to even),
     * or unchanged for f32.
     */
    public static RopeSpec roundedTo(RopeSpec spec, panamax.api.tensor.DType dtype) {
        if (dtype == panamax.api.tensor.DType.F32) return spec;
        float[] f = new float[spec.dims() / 2];
        for (int i = 0; i < f.length; i++) {
            float inv = spec.frequencies().isPresent() ? spec.frequencies().get()[i] : (float) (1.0 / Math.pow(spec.base(), (float) (2 * i) / spec.dims()));
            // linear scaling divides the frequencies before the cast, as HF's buffer holds inv_freq / factor
            f[i] = round((float) (inv * spec.scale()), dtype);
        }
        return new RopeSpec(spec.dims(), spec.base(), spec.traditional(), 1.0, Optional.of(f));
    }

    /** {@code v} rounded to {@code dtype} (nearest, ties to even); unchanged for f32. */
    public static float round(float v, panamax.api.tensor.DType dtype) {
        if (dtype == panamax.api.tensor.DType.F32) return v;
        if (dtype == panamax.api.tensor.DType.F16) return Float.float16ToFloat(Float.floatToFloat16(v));
        int bits = Float.floatToRawIntBits(v);
        return Float.intBitsToFloat((bits + 0x7FFF + ((bits >>> 16) & 1)) & 0xFFFF0000);
    }

    private static double positive(HfConfig c, String field, double v) {
        if (!(v > 0)) throw c.bad(field, "a positive number", v);
        return v;
    }

    /** A rope of the given base, scaled as {@code p}'s {@code rope_type} (or legacy {@code type}) says. */
    private static RopeSpec spec(HfConfig p, double theta, int dims) {
        positive(p, "rope_theta", theta);
        String type = p.string("rope_type").or(() -> p.string("type")).orElse("default");
        return switch (type) {
            case "default" -> RopeSpec.of(dims, theta);
            case "linear" -> new RopeSpec(dims, theta, false, 1.0 / positive(p, "factor", p.requireDouble("factor")), Optional.empty());
            case "llama3" -> new RopeSpec(dims, theta, false, 1.0, Optional.of(llama3(p, theta, dims)));
            default -> throw p.bad("rope_type", "default, linear or llama3", "\"" + type + "\"");
        };
    }

    /** Llama 3.1's frequencies: long wavelengths divided by {@code factor}, a smooth blend between. */
    public static float[] llama3(HfConfig p, double theta, int dims) {
        double factor = positive(p, "factor", p.requireDouble("factor"));
        double low = positive(p, "low_freq_factor", p.requireDouble("low_freq_factor"));
        double high = positive(p, "high_freq_factor", p.requireDouble("high_freq_factor"));
        if (!(high > low)) throw p.bad("high_freq_factor", "greater than low_freq_factor " + low, high);
        double oldContext = p.requireInt("original_max_position_embeddings", 1, Integer.MAX_VALUE);
        double lowWavelen = oldContext / low;
        double highWavelen = oldContext / high;
        float[] out = new float[dims / 2];
        for (int i = 0; i < out.length; i++) {
            // float32 like the reference implementation's torch tensors
            float inv = (float) (1.0 / Math.pow(theta, (float) (2 * i) / dims));
            double wavelen = 2 * Math.PI / inv;
            if (wavelen < highWavelen) {
                out[i] = inv;
            } else if (wavelen > lowWavelen) {
                out[i] = (float) (inv / factor);
            } else {
                double smooth = (oldContext / wavelen - low) / (high - low);
                out[i] = (float) ((1 - smooth) * inv / factor + smooth * inv);
            }
        }
        return out;
    }
}
