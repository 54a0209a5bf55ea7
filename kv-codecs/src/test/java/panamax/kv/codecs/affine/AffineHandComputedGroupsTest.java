package panamax.kv.codecs.affine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static panamax.kv.codecs.JavaBackendFixture.leakChecked;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.CodecFactory;
import panamax.kv.codecs.MlxAffineReference;

/**
 * Single groups of 32 whose quantization is worked out by hand from the MLX rule, checked against
 * the codec's planes (f32 activations, so scales and biases are not rounded to bf16).
 */
class AffineHandComputedGroupsTest {

    /** What the codec stored for one group of 32: codes, scale, bias and the decoded values. */
    private record Encoded(int[] codes, float scale, float bias, float[] decoded) {
    }

    private static Encoded encode(float[] group, int bits) {
        Encoded[] out = new Encoded[1];
        leakChecked(b -> out[0] = encodeOn(b, group, bits));
        return out[0];
    }

    private static Encoded encodeOn(Backend b, float[] group, int bits) {
        try (KvCodec codec = CodecFactory.create(new AffineCodecProvider(), Map.of("bits", "" + bits, "group_size", "32"), b,
                1, 32, DType.F32);
             Tensor x = b.fromFloats(group, Shape.of(1, 1, 1, 32), DType.F32)) {
            List<Tensor> planes = codec.encode(KvRole.KEY, x);
            try (Tensor decoded = codec.decode(KvRole.KEY, planes)) {
                assertEquals(List.of(DType.U32, DType.F32, DType.F32), planes.stream().map(Tensor::dtype).toList());
                int[] codes = MlxAffineReference.unpack(b.toInts(planes.get(0)), 0, 32, bits);
                return new Encoded(codes, b.toFloats(planes.get(1))[0], b.toFloats(planes.get(2))[0], b.toFloats(decoded));
            } finally {
                planes.forEach(Tensor::close);
            }
        }
    }

    private static float[] filled(float v) {
        float[] g = new float[32];
        Arrays.fill(g, v);
        return g;
    }

    @Test
    void allEqualGroupKeepsItsValueExactlyWithTheMinimumScaleNegated() {
        // range 0 → s = 1e-7; |min| = |max| so the max is the edge and s = −1e-7;
        // q0 = rint(2.5 / −1e-7) = −25,000,000 ≠ 0 → s = 2.5 / q0, bias = 2.5; every code 0
        Encoded e = encode(filled(2.5f), 4);
        float q0 = (float) Math.rint(2.5f / -1e-7f);
        assertEquals(-25_000_000f, q0);
        assertEquals(2.5f / q0, e.scale());
        assertEquals(2.5f, e.bias());
        assertArrayEquals(new int[32], e.codes());
        assertArrayEquals(filled(2.5f), e.decoded());
    }

    @Test
    void allZeroGroupHasZeroBiasAndDecodesToPositiveZero() {
        // q0 = rint(0 / −1e-7) = 0 → bias stays 0 and s stays −1e-7
        Encoded e = encode(filled(0f), 4);
        assertEquals(-1e-7f, e.scale());
        assertEquals(0f, e.bias());
        assertArrayEquals(new int[32], e.codes());
        for (float v : e.decoded()) assertEquals(0, Float.compare(v, 0f), "decoded +0, found " + v);
    }

    @Test
    void allNegativeGroupTakesTheMinimumAsBiasWithAPositiveScale() {
        // w_i = −(i+1)/4: min −8, max −0.25; s = 7.75/15; |min| > |max| so edge = −8, s > 0;
        // q0 = rint(−8 / (7.75/15)) = rint(−15.48) = −15 → s = −8/−15 = 8/15, bias = −8
        float[] g = new float[32];
        for (int i = 0; i < 32; i++) g[i] = -(i + 1) / 4f;
        Encoded e = encode(g, 4);
        assertEquals(-15f, (float) Math.rint(-8f / (7.75f / 15)));
        assertEquals(-8f / -15f, e.scale());
        assertEquals(-8f, e.bias());
        assertEquals(0, e.codes()[31], "the minimum is the bias: code 0");
        // w = −0.25: (−0.25 + 8) / (8/15) = 14.53 → 15
        assertEquals(15, e.codes()[0]);
        assertEquals(-8f, e.decoded()[31]);
        for (int i = 0; i < 32; i++) {
            assertEquals(e.codes()[i] * e.scale() + e.bias(), e.decoded()[i], 1e-6f);
            assertEquals(g[i], e.decoded()[i], e.scale() / 2 + 1e-6f);
        }
    }

    @Test
    void singleOutlierIsKeptExactlyAndSmallValuesCollapseOntoTheGrid() {
        // 31 values 0.01·k and one 20: edge = 20 (max), s = −(20 − 0)/15; q0 = rint(20/s) = −15
        // → s = 20/−15 = −4/3, bias = 20; small values land at code 15 → 20 + 15·(−4/3) ≈ 0
        float[] g = new float[32];
        for (int i = 0; i < 32; i++) g[i] = 0.01f * i;
        g[17] = 20f;
        Encoded e = encode(g, 4);
        assertEquals(20f / -15f, e.scale());
        assertEquals(20f, e.bias());
        assertEquals(0, e.codes()[17]);
        assertEquals(20f, e.decoded()[17]);
        for (int i = 0; i < 32; i++) {
            if (i == 17) continue;
            assertEquals(15, e.codes()[i], "element " + i);
            assertEquals(g[i], e.decoded()[i], Math.abs(e.scale()) / 2);
        }
    }

    @Test
    void plusMinusMaxGroupRoundsQ0HalfToEvenAndClampsTheOppositeExtreme() {
        // values ±3 and 0: |min| = |max| so edge = +3, s = −6/15 = −0.4; q0 = rint(3/−0.4) = rint(−7.5) = −8
        // (half to even) → s = 3/−8 = −0.375, bias = 3; −3 gives rint(16) = 16, clamped to 15 → −2.625
        float[] g = new float[32];
        for (int i = 0; i < 32; i++) g[i] = i % 3 == 0 ? 3f : i % 3 == 1 ? -3f : 0f;
        Encoded e = encode(g, 4);
        assertEquals(-8f, (float) Math.rint(3f / (-6f / 15)));
        assertEquals(-0.375f, e.scale());
        assertEquals(3f, e.bias());
        for (int i = 0; i < 32; i++) {
            int expected = i % 3 == 0 ? 0 : i % 3 == 1 ? 15 : 8;
            assertEquals(expected, e.codes()[i], "element " + i);
        }
        assertEquals(-2.625f, e.decoded()[1], "the clamped extreme moves by one step");
        assertEquals(3f, e.decoded()[0]);
        assertEquals(0f, e.decoded()[2]);
    }

    @Test
    void everyHandGroupMatchesTheScalarReferenceRuleAtEveryWidth() {
        float[] outlier = new float[32];
        for (int i = 0; i < 32; i++) outlier[i] = 0.01f * i;
        outlier[5] = -15f;
        float[] pm = new float[32];
        for (int i = 0; i < 32; i++) pm[i] = i % 2 == 0 ? 7.25f : -7.25f;
        for (float[] g : List.of(filled(-3.5f), filled(0f), filled(1.25f), outlier, pm)) {
            for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
                Encoded e = encode(g, bits);
                MlxAffineReference.Group ref = MlxAffineReference.quantize(g, 0, 32, bits);
                assertArrayEquals(ref.codes(), e.codes(), "codes at " + bits + " bits of " + Arrays.toString(g));
                assertEquals(ref.scale(), e.scale(), "scale at " + bits + " bits");
                assertEquals(ref.bias(), e.bias(), "bias at " + bits + " bits");
            }
        }
    }
}
