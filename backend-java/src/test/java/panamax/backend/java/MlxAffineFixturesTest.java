package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;
import panamax.backend.java.kernel.AffineTiles;
import panamax.backend.java.kernel.WidenedCodes;

/** Checks quantize / dequantize / quantizedMatmul against MLX 0.31.2 CPU outputs (fixtures/mlx-affine). */
class MlxAffineFixturesTest {
    private static Backend backend;
    private static Ops ops;

    @BeforeAll
    static void start() {
        backend = new JavaBackendProvider().create(BackendOptions.defaults());
        ops = backend.ops();
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    private static Path fixture(String name) {
        Path p = Safetensors.fixtures().resolve("mlx-affine").resolve(name);
        assertTrue(Files.isRegularFile(p), "missing fixture " + p + " (set -Dpanamax.fixtures)");
        return p;
    }

    private static int[] bits(Tensor t) {
        return backend.toInts(t);
    }

    private static int[] floatBits(Tensor t) {
        float[] v = backend.toFloats(t);
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = Float.floatToRawIntBits(v[i]);
        return out;
    }

    @Test
    void quantizeAndDequantizeReproduceMlxBitForBitInAll36Cases() throws Exception {
        long baseline = backend.memoryStats().activeBytes();
        int cases = 0;
        try (Safetensors f = new Safetensors(fixture("quantize.safetensors"))) {
            for (int b : new int[] {2, 3, 4, 5, 6, 8}) {
                for (int g : new int[] {32, 64, 128}) {
                    for (String t : new String[] {"f32", "bf16"}) {
                        String c = "b" + b + "_g" + g + "_" + t;
                        try (Tensor input = f.tensor(backend, c + ".input");
                             Tensor packed = f.tensor(backend, c + ".packed");
                             Tensor scales = f.tensor(backend, c + ".scales");
                             Tensor biases = f.tensor(backend, c + ".biases");
                             Tensor expected = f.tensor(backend, c + ".dequantized");
                             QuantizedMatrix q = ops.quantize(input, g, b);
                             Tensor deq = ops.dequantize(q)) {
                            assertEquals(input.dtype(), q.scales().dtype(), c + " scales dtype");
                            assertEquals(packed.shape(), q.packed().shape(), c + " packed shape");
                            assertArrayEquals(bits(packed), bits(q.packed()), c + " packed");
                            assertArrayEquals(floatBits(scales), floatBits(q.scales()), c + " scales");
                            assertArrayEquals(floatBits(biases), floatBits(q.biases()), c + " biases");
                            assertEquals(input.dtype(), deq.dtype(), c + " dequantized dtype");
                            assertArrayEquals(floatBits(expected), floatBits(deq), c + " dequantized");
                            // dequantize the fixture's own tensors too (mapped, not ours)
                            QuantizedMatrix theirs = new QuantizedMatrix(packed, scales, biases, g, b);
                            try (Tensor deq2 = ops.dequantize(theirs)) {
                                assertArrayEquals(floatBits(expected), floatBits(deq2), c + " dequantized from fixture tensors");
                            }
                            cases++;
                        }
                    }
                }
            }
        }
        assertEquals(36, cases);
        assertEquals(baseline, backend.memoryStats().activeBytes(), "every temporary freed");
        assertEquals(0, backend.memoryStats().mappedBytes(), "every mapped tensor closed");
    }

    @Test
    void quantizedMatmulMatchesMlxInAll24CasesThroughBothKernels() throws Exception {
        int cases = 0, repacked = 0;
        try (Safetensors f = new Safetensors(fixture("quantized_matmul.safetensors"))) {
            List<String> names = List.of(f.metadata("cases").split(","));
            assertEquals(24, names.size());
            for (String c : names) {
                int b = Integer.parseInt(c.substring(1, c.indexOf('_')));
                boolean wBf16 = c.contains("wbf16");
                boolean xBf16 = c.contains("xbf16");
                try (Tensor w = f.tensor(backend, wBf16 ? "W_bf16" : "W_f32");
                     Tensor x = f.tensor(backend, c + ".x");
                     Tensor packed = f.tensor(backend, c + ".packed");
                     Tensor scales = f.tensor(backend, c + ".scales");
                     Tensor biases = f.tensor(backend, c + ".biases");
                     Tensor expected = f.tensor(backend, c + ".out");
                     QuantizedMatrix q = ops.quantize(w, 64, b)) {
                    assertArrayEquals(bits(packed), bits(q.packed()), c + " packed");
                    assertArrayEquals(floatBits(scales), floatBits(q.scales()), c + " scales");
                    assertArrayEquals(floatBits(biases), floatBits(q.biases()), c + " biases");
                    float[] want = backend.toFloats(expected);
                    float[] magnitude = magnitudes(x, q);
                    double tolerance = wBf16 && xBf16 ? 5e-2 : 1e-5;
                    DType outType = wBf16 && xBf16 ? DType.BF16 : DType.F32;
                    // all five rows at once (GEMM path with dequantized panels)
                    try (Tensor y = ops.quantizedMatmul(x, q, true)) {
                        assertEquals(outType, y.dtype(), c + " dtype");
                        assertClose(want, backend.toFloats(y), magnitude, tolerance, c + " (gemm)");
                    }
                    // one row at a time (matrix-vector kernels)
                    float[] rows = new float[want.length];
                    int n = want.length / 5;
                    for (int r = 0; r < 5; r++) {
                        try (Tensor xr = ops.slice(x, 0, r, r + 1); Tensor y = ops.quantizedMatmul(xr, q, true)) {
                            System.arraycopy(backend.toFloats(y), 0, rows, r * n, n);
                        }
                    }
                    assertClose(want, rows, magnitude, tolerance, c + " (matvec)");
                    // MLX's own codes and parameters as a caller's segments (as a loaded model's): repacked into tiles
                    // at the first product (3-, 5- and 6-bit codes widened), or where vectors are narrower, 3-, 5- and
                    // 6-bit codes copied at 4 and 8 bits for the vector kernels: a form kept with the weights either way
                    int kk = x.shape().dim(1);
                    if (AffineTiles.supports(b, kk, 64) || WidenedCodes.supports(b, kk, 64)) {
                        QuantizedMatrix mlx = new QuantizedMatrix(packed, scales, biases, 64, b);
                        long mapped = backend.memoryStats().mappedBytes();
                        try (Tensor y = ops.quantizedMatmul(x, mlx, true)) {
                            assertTrue(backend.memoryStats().mappedBytes() > mapped, c + ": the product made tiles or widened codes");
                            assertClose(want, backend.toFloats(y), magnitude, tolerance, c + " (tiles or widened codes, five rows)");
                        }
                        try (Tensor x0 = ops.slice(x, 0, 0, 1); Tensor y = ops.quantizedMatmul(x0, mlx, true)) {
                            assertClose(Arrays.copyOf(want, n), backend.toFloats(y), Arrays.copyOf(magnitude, n), tolerance, c + " (tiles or widened codes, one row)");
                        }
                        repacked++;
                    }
                    cases++;
                }
            }
        }
        assertEquals(24, cases);
        if (AffineTiles.supports(8, 64, 64)) assertEquals(24, repacked, "cases through the tiles");
    }

    /** Σ_k |x[m,k]·w[n,k]| per output: the scale against which summation-order differences are judged. */
    private static float[] magnitudes(Tensor x, QuantizedMatrix q) {
        float[] xv = backend.toFloats(x);
        try (Tensor w = ops.dequantize(q)) {
            float[] wv = backend.toFloats(w);
            int k = x.dim(-1);
            int m = xv.length / k;
            int n = wv.length / k;
            float[] out = new float[m * n];
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int l = 0; l < k; l++) s += Math.abs((double) xv[i * k + l] * wv[j * k + l]);
                    out[i * n + j] = (float) s;
                }
            }
            return out;
        }
    }

    private static void assertClose(float[] want, float[] got, float[] magnitude, double tolerance, String what) {
        assertEquals(want.length, got.length, what + " length");
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < want.length; i++) {
            double limit = tolerance * Math.max(magnitude[i], Math.abs(want[i])) + 1e-7;
            if (!(Math.abs(want[i] - got[i]) <= limit) && bad.size() < 5) {
                bad.add("[" + i + "] want " + want[i] + " got " + got[i] + " (limit " + limit + ")");
            }
        }
        assertTrue(bad.isEmpty(), what + ": " + bad);
    }
}
