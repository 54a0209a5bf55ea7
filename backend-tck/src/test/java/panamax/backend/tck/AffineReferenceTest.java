package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;

/** Checks the TCK's own affine reference against the bit-exact outputs of real MLX (CPU). */
class AffineReferenceTest {
    private static final FixtureFile QUANTIZE = FixtureFile.open("mlx-affine/quantize.safetensors");

    @Test
    void referenceQuantizerReproducesMlxBitForBitInAll36Cases() {
        int cases = 0;
        for (int bits : new int[] {2, 3, 4, 5, 6, 8}) {
            for (int group : new int[] {32, 64, 128}) {
                for (DType dtype : new DType[] {DType.F32, DType.BF16}) {
                    String name = "b" + bits + "_g" + group + "_" + (dtype == DType.F32 ? "f32" : "bf16");
                    FixtureFile.Entry input = QUANTIZE.get(name + ".input");
                    int rows = input.dims()[0];
                    int cols = input.dims()[1];
                    AffineReference.Quantized q = AffineReference.quantize(input.values(), rows, cols, group, bits, dtype);
                    assertArrayEquals(QUANTIZE.get(name + ".packed").bits(), q.packed(), name + " packed");
                    assertArrayEquals(QUANTIZE.get(name + ".scales").values(), q.scales(), name + " scales");
                    assertArrayEquals(QUANTIZE.get(name + ".biases").values(), q.biases(), name + " biases");
                    assertArrayEquals(q.codes(), AffineReference.unpack(q.packed(), rows, cols, bits), name + " unpack");
                    cases++;
                }
            }
        }
        assertEquals(36, cases);
    }

    @Test
    void float64DequantizationMatchesMlxForF32Scales() {
        FixtureFile.Entry input = QUANTIZE.get("b4_g64_f32.input");
        int rows = input.dims()[0];
        int cols = input.dims()[1];
        AffineReference.Quantized q = AffineReference.quantize(input.values(), rows, cols, 64, 4, DType.F32);
        double[] deq = AffineReference.dequantize(q.codes(), q.scales(), q.biases(), rows, cols, 64);
        double[] mlx = QUANTIZE.get("b4_g64_f32.dequantized").values();
        for (int i = 0; i < deq.length; i++) {
            // MLX rounds q·s and then + b to f32; float64 differs by at most those two roundings
            assertEquals(mlx[i], deq[i], 2 * Math.ulp((float) Math.max(Math.abs(mlx[i]), 1e-30)) + Math.ulp((float) (q.codes()[i] * q.scales()[i / 64])), "element " + i);
        }
    }
}
