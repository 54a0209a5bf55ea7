package panamax.backend.mlx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.backend.java.JavaBackendProvider;
import panamax.backend.tck.Property;
import panamax.kv.codecs.affine.AffineCodecProvider;

/**
 * MLX's own {@code quantize} (through mlx-c) against our affine KV codec on the java backend, on
 * generated keys: packed words, scales and biases must be identical, bit for bit, for every bit
 * width and group size, in f32 and bf16, including inputs built to hit rounding ties and constant
 * groups. Runs only when libmlxc is present.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MlxQuantizeMatchesAffineCodecTest {
    private Backend mlx;
    private Backend java;

    @BeforeAll
    void backends() {
        MlxBackendProvider provider = new MlxBackendProvider();
        Assumptions.assumeTrue(provider.unavailableReason().isEmpty(),
                () -> "skipped: backend mlx unavailable: " + provider.unavailableReason().orElse(""));
        mlx = provider.create(BackendOptions.defaults());
        java = new JavaBackendProvider().create(BackendOptions.defaults());
    }

    @AfterAll
    void close() {
        if (mlx != null) mlx.close();
        if (java != null) java.close();
    }

    /** Keys [1, heads, tokens, headDim]: smooth values, values on a coarse grid (ties), or constant runs. */
    private static float[] keys(int n, int kind, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = switch (kind) {
                case 0 -> (float) random.nextGaussian() * 3;
                case 1 -> random.nextInt(-16, 17) / 4f;           // few levels: many exact .5 ties after scaling
                case 2 -> (i / 32) % 3 == 0 ? 1.5f : (float) random.nextDouble(-1, 1); // constant groups
                default -> (float) random.nextDouble(0, 1e-6);   // ranges below the 1e-7 scale floor
            };
        }
        return x;
    }

    @Test
    void mlxQuantizeEqualsTheAffineCodecBitForBit() {
        Property.examples(120) // the TCK's seeds: drawn per run, then the fixed one
                .forAll(integers().between(0, 5), integers().between(0, 2), integers().between(0, 3), integers().all())
                .checkAssert((bitsIndex, groupIndex, kind, seed) -> {
                    int bits = List.of(2, 3, 4, 5, 6, 8).get(bitsIndex);
                    int group = List.of(32, 64, 128).get(groupIndex);
                    for (DType dtype : List.of(DType.F32, DType.BF16)) compare(bits, group, kind, seed, dtype);
                });
    }

    private void compare(int bits, int group, int kind, long seed, DType dtype) {
        int heads = 2;
        int tokens = 3 + (int) Math.floorMod(seed, 5);
        int headDim = group * (1 + (int) Math.floorMod(seed >> 8, 2));
        Shape shape = Shape.of(1, heads, tokens, headDim);
        float[] values = keys((int) shape.size(), kind, seed);
        String what = "bits " + bits + " group " + group + " kind " + kind + " " + dtype + " " + shape;
        KvCodec codec = new AffineCodecProvider().create(
                PluginParams.of(Map.of("bits", "" + bits, "group_size", "" + group)),
                new CodecContext(java, 0, heads, headDim, dtype, 0));
        try (Tensor jx = java.fromFloats(values, shape, dtype); Tensor mx = mlx.fromFloats(values, shape, dtype)) {
            List<Tensor> planes = codec.encode(KvRole.KEY, jx);
            try (QuantizedMatrix q = mlx.ops().quantize(mx, group, bits)) {
                assertArrayEquals(java.toInts(planes.get(0)), mlx.toInts(q.packed()), what + ": packed words");
                assertArrayEquals(bits(java.toFloats(planes.get(1))), bits(mlx.toFloats(q.scales())), what + ": scales");
                assertArrayEquals(bits(java.toFloats(planes.get(2))), bits(mlx.toFloats(q.biases())), what + ": biases");
            } finally {
                planes.forEach(Tensor::close);
            }
        }
    }

    private static int[] bits(float[] f) {
        int[] out = new int[f.length];
        for (int i = 0; i < f.length; i++) out[i] = Float.floatToRawIntBits(f[i]);
        return out;
    }
}
