package panamax.layout.tck;

import java.util.List;
import java.util.Map;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.DType;

/**
 * The codecs the layout TCK stores, written against the api alone so that a layout is tested
 * without any real codec plugin: an exact one (also the identity codec of converting layouts), a
 * lossy one with two planes of different widths and dtypes, and one that keeps values in a rotated
 * domain and attends on its planes. They are not registered with ServiceLoader.
 */
public final class TestCodecs {
    /** f32 copies of keys and values: one plane {@code values [headDim]}. */
    public static final StoredCodec EXACT = new StoredCodec(new TestCodecProvider("tck-exact",
            KvCodecCapabilities.builder("exact f32 copies (layout TCK)").build(),
            d -> single(d), ExactCodec::new), Map.of(), ReconstructionBound.exact());

    /** Values less their mean, truncated to sixteenths: planes {@code codes} I32 [headDim] and {@code mean} F32 [1]. */
    public static final StoredCodec LOSSY = new StoredCodec(new TestCodecProvider("tck-lossy",
            KvCodecCapabilities.builder("mean and truncated sixteenths (layout TCK)").build(),
            d -> {
                List<PlaneSpec> planes = List.of(new PlaneSpec("codes", d, DType.I32), new PlaneSpec("mean", 1, DType.F32));
                return new CodecShape(d, planes, planes);
            }, LossyCodec::new), Map.of(), LossyCodec.BOUND);

    /** Values stored reversed and negated, attention on the planes un-rotating its output. */
    public static final StoredCodec ROTATED = new StoredCodec(new TestCodecProvider("tck-rotated",
            KvCodecCapabilities.builder("values in a rotated domain, attention on the planes (layout TCK)")
                    .attentionOnPlanes(true).rotatedValues(true).build(),
            d -> single(d), RotatedCodec::new), Map.of(), ReconstructionBound.exact());

    private TestCodecs() {
    }

    /** The exact codec's provider, for the identity codec of a layout's context. */
    public static KvCodecProvider exact() {
        return EXACT.provider();
    }

    private static CodecShape single(int headDim) {
        List<PlaneSpec> planes = List.of(new PlaneSpec("values", headDim, DType.F32));
        return new CodecShape(headDim, planes, planes);
    }
}
