package panamax.example.fp8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.layout.tck.LayoutTck;

/** The E4M3 element bound, finer than the codec TCK's per-vector one, and the provider's declaration. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Fp8CodecProperties {
    private final Backend backend = LayoutTck.testBackend();

    @AfterAll
    void close() {
        backend.close();
    }

    /** Values spread over many binades, with a few exact zeros and ties. */
    private static float[] vectors(long seed, int count) {
        Random random = new Random(seed);
        float[] v = new float[count];
        for (int i = 0; i < count; i++) {
            v[i] = switch (random.nextInt(8)) {
                case 0 -> 0f;
                case 1 -> (float) (random.nextGaussian() * 1e-4);
                default -> (float) (random.nextGaussian() * Math.pow(2, random.nextInt(20) - 10));
            };
        }
        return v;
    }

    @Test
    void theProviderDeclaresCodesAndAScalePerTokenAndHeadAndNoParameters() {
        Fp8CodecProvider provider = new Fp8CodecProvider();
        assertEquals("fp8", provider.id());
        assertEquals(List.of(), provider.capabilities().params());
        var shape = provider.shape(PluginParams.empty(), 128);
        assertEquals(2 * (128 + 4), shape.bytesPerTokenPerHead());
        assertEquals(List.of("codes", "scale"), shape.keyPlanes().stream().map(p -> p.name()).toList());
    }

    @Test
    void encodedVectorsDecodeWithinTheE4M3BoundRelativeToTheirScale() {
        qt().forAll(longs().all(), integers().between(1, 3), integers().between(1, 5), integers().between(1, 4))
                .checkAssert((seed, heads, tokens, dimPower) -> {
                    int headDim = 8 << dimPower;
                    Shape shape = Shape.of(2, heads, tokens, headDim);
                    float[] values = vectors(seed, (int) shape.size());
                    CodecContext context = new CodecContext(backend, 0, heads, headDim, DType.F32, 0);
                    try (KvCodec codec = new Fp8CodecProvider().create(PluginParams.empty(), context);
                         Tensor x = backend.fromFloats(values, shape, DType.F32)) {
                        List<Tensor> planes = codec.encode(KvRole.VALUE, x);
                        assertEquals(Shape.of(2, heads, tokens, headDim), planes.get(0).shape());
                        assertEquals(Shape.of(2, heads, tokens, 1), planes.get(1).shape());
                        assertEquals(DType.U8, planes.get(0).dtype());
                        try (Tensor back = codec.decode(KvRole.VALUE, planes)) {
                            float[] decoded = backend.toFloats(back);
                            float[] scales = backend.toFloats(planes.get(1));
                            for (int i = 0; i < values.length; i++) {
                                float scale = scales[i / headDim];
                                // Normal range: half an ulp of 3 mantissa bits; below it, half a subnormal step of the scale.
                                double bound = Math.abs(values[i]) >= E4M3.MIN_NORMAL * scale
                                        ? 0x1p-4 * Math.abs(values[i]) : E4M3.SUBNORMAL_STEP / 2.0 * scale;
                                assertTrue(Math.abs(decoded[i] - values[i]) <= bound * (1 + 1e-6) + 1e-30,
                                        "element " + i + ": " + values[i] + " came back as " + decoded[i] + " (scale " + scale + ")");
                            }
                        }
                        planes.forEach(Tensor::close);
                    }
                });
    }

    @Test
    void theLargestElementOfEachVectorIsStoredExactly() {
        float[] v = {0.5f, -3.25f, 1e-3f, 2f};
        int[] codes = new int[4];
        float scale = Fp8Codec.encodeVector(v, 0, 4, codes);
        assertEquals(3.25f / 448f, scale);
        float[] back = new float[4];
        Fp8Codec.decodeVector(codes, scale, 0, 4, back);
        assertEquals(-3.25f, back[1], 1e-6f);
    }

    @Test
    void anAllZeroVectorHasAZeroScaleAndDecodesToZeros() {
        int[] codes = new int[3];
        assertEquals(0f, Fp8Codec.encodeVector(new float[3], 0, 3, codes));
        float[] back = new float[3];
        Fp8Codec.decodeVector(codes, 0f, 0, 3, back);
        assertEquals(0f, back[0] + back[1] + back[2]);
    }
}
