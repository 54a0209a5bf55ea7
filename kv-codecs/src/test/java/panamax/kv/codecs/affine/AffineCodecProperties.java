package panamax.kv.codecs.affine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.AttentionCase;
import panamax.kv.codecs.CodecFactory;
import panamax.kv.codecs.JavaBackendFixture;
import panamax.kv.codecs.MlxAffineReference;

/** Generated checks of the affine codec against the scalar MLX rule and the backend's attention. */
class AffineCodecProperties {
    private static final int[] BITS = {2, 3, 4, 5, 6, 8};
    private static final int[] GROUPS = {32, 64, 128};

    @Test
    void planesFollowTheMlxRuleAndRoundTripWithinHalfAStepExceptWhereTheEdgeRuleClamps() {
        qt().withExamples(60).forAll(integers().between(0, 5), integers().between(0, 2), integers().between(-3, 3), longs().all())
                .checkAssert((bi, gi, magnitude, seed) -> leakChecked(b -> {
                    int bits = BITS[bi];
                    int group = GROUPS[gi];
                    int rows = 2 * 3;
                    float[] x = JavaBackendFixture.gaussians(seed, rows * 128);
                    double scale = Math.pow(10, magnitude);
                    float shift = (seed & 1) == 0 ? 0f : 2.5f; // some groups entirely positive
                    for (int i = 0; i < x.length; i++) x[i] = (float) (x[i] * scale) + shift;
                    try (KvCodec codec = CodecFactory.create(new AffineCodecProvider(),
                            Map.of("bits", "" + bits, "group_size", "" + group), b, 2, 128, DType.F32);
                         Tensor xt = b.fromFloats(x, Shape.of(1, 2, 3, 128), DType.F32)) {
                        List<Tensor> planes = codec.encode(KvRole.VALUE, xt);
                        try (Tensor decoded = codec.decode(KvRole.VALUE, planes)) {
                            int[] words = b.toInts(planes.get(0));
                            float[] scales = b.toFloats(planes.get(1));
                            float[] biases = b.toFloats(planes.get(2));
                            float[] y = b.toFloats(decoded);
                            int wordsPerRow = 128 * bits / 32;
                            for (int r = 0; r < rows; r++) {
                                int[] codes = MlxAffineReference.unpack(words, r * wordsPerRow, 128, bits);
                                for (int g = 0; g < 128 / group; g++) {
                                    var ref = MlxAffineReference.quantize(x, r * 128 + g * group, group, bits);
                                    int gIndex = r * (128 / group) + g;
                                    assertEquals(ref.scale(), scales[gIndex], "scale of group " + gIndex);
                                    assertEquals(ref.bias(), biases[gIndex], "bias of group " + gIndex);
                                    for (int i = 0; i < group; i++) {
                                        int e = r * 128 + g * group + i;
                                        assertEquals(ref.codes()[i], codes[g * group + i], "code of element " + e);
                                        boolean clamped = ref.codes()[i] != ref.unclamped()[i];
                                        double step = Math.abs(ref.scale());
                                        double bound = (clamped ? 1.5 : 0.5) * step * (1 + 1e-5) + 1e-6 * Math.abs(x[e]);
                                        assertTrue(Math.abs(x[e] - y[e]) <= bound, "element " + e + ": " + x[e] + " decoded to "
                                                + y[e] + ", step " + step + (clamped ? " (clamped)" : ""));
                                    }
                                }
                            }
                        } finally {
                            planes.forEach(Tensor::close);
                        }
                    }
                }));
    }

    @Test
    void attentionOnThePlanesEqualsDecodingThenTheBackendsAttention() {
        qt().withExamples(50).forAll(integers().between(0, 5), integers().between(0, 2), longs().all())
                .checkAssert((bi, gi, seed) -> leakChecked(b -> {
                    AttentionCase c = AttentionCase.draw(seed);
                    int group = GROUPS[gi];
                    int headDim = group * (1 + (int) (seed >>> 63)); // one or two groups
                    try (KvCodec codec = CodecFactory.create(new AffineCodecProvider(),
                            Map.of("bits", "" + BITS[bi], "group_size", "" + group), b, c.kvHeads(), headDim, DType.F32)) {
                        double diff = c.maxDifference(b, codec, headDim, DType.F32);
                        assertTrue(diff < 2e-4, "max |attend − sdpa(decode)| = " + diff + " for " + c + ", head dim " + headDim);
                    }
                }));
    }

    @Test
    void bf16AttentionOnThePlanesStaysWithinBf16RoundingOfTheDecodedReference() {
        for (long seed = 1; seed <= 6; seed++) {
            long s = seed;
            leakChecked(b -> {
                AttentionCase c = AttentionCase.draw(s);
                try (KvCodec codec = CodecFactory.create(new AffineCodecProvider(), Map.of(), b, c.kvHeads(), 128, DType.BF16)) {
                    double diff = c.maxDifference(b, codec, 128, DType.BF16);
                    assertTrue(diff < 3e-2, "max |attend − sdpa(decode)| = " + diff + " for " + c);
                }
            });
        }
    }

    @Test
    void fourBitGroupsOf64OnBf16CostExactlyFourAndAHalfBitsPerElement() {
        var shape = new AffineCodecProvider().shape(panamax.api.kv.PluginParams.empty(), 128);
        assertEquals(4.5, shape.bitsPerElement());
        assertEquals(List.of("packed", "scales", "biases"), shape.keyPlanes().stream().map(p -> p.name()).toList());
        assertEquals(List.of(16, 2, 2), shape.keyPlanes().stream().map(p -> p.width()).toList());
        assertEquals(2 * (16 * 4 + 2 * 2 + 2 * 2), shape.bytesPerTokenPerHead());
        assertArrayEquals(new Object[] {DType.U32, DType.BF16, DType.BF16},
                shape.valuePlanes().stream().map(p -> p.dtype()).toArray());
    }
}
