package panamax.backend.mlx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.backend.java.JavaBackendProvider;

/**
 * {@code quantizedMatmul} takes two routes on MLX: MLX's quantized kernel for few rows (decode) and
 * dequantize + BLAS from {@link QuantOps#BLAS_ROWS} rows on (prefill), which the TCK's small shapes
 * never reach. Both must equal x·dequantize(w) computed by the java backend, within the TCK's f32
 * rule (1e-5 of Σ|x|·|w| per output), transposed or not, with and without batch axes on w.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MlxQuantizedMatmulPathsTest {
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

    private static float[] random(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = (float) r.nextGaussian();
        return out;
    }

    @Test
    void bothRoutesEqualTheDequantizedProduct() {
        long seed = 1;
        for (int rows : List.of(3, QuantOps.BLAS_ROWS, 40)) {
            for (boolean transpose : List.of(true, false)) {
                for (int batch : List.of(0, 2)) {
                    for (int bits : List.of(4, 8)) check(rows, transpose, batch, bits, seed++);
                }
            }
        }
    }

    private void check(int rows, boolean transpose, int batch, int bits, long seed) {
        int k = 128;
        int n = 192;
        Shape wShape = batch == 0 ? (transpose ? Shape.of(n, k) : Shape.of(k, n)) : (transpose ? Shape.of(batch, n, k) : Shape.of(batch, k, n));
        Shape xShape = batch == 0 ? Shape.of(rows, k) : Shape.of(batch, rows, k);
        float[] w = random((int) wShape.size(), seed);
        float[] x = random((int) xShape.size(), seed + 1000);
        String what = "rows " + rows + " transpose " + transpose + " batch " + batch + " bits " + bits;
        try (Tensor mw = mlx.fromFloats(w, wShape, DType.F32);
             QuantizedMatrix mq = mlx.ops().quantize(mw, 64, bits);
             Tensor mx = mlx.fromFloats(x, xShape, DType.F32);
             Tensor got = mlx.ops().quantizedMatmul(mx, mq, transpose);
             Tensor jw = java.fromFloats(w, wShape, DType.F32);
             QuantizedMatrix jq = java.ops().quantize(jw, 64, bits);
             Tensor deq = java.ops().dequantize(jq);
             Tensor right = transpose ? java.ops().transpose(deq, batch == 0 ? new int[] {1, 0} : new int[] {0, 2, 1}) : java.ops().copy(deq);
             Tensor jx = java.fromFloats(x, xShape, DType.F32);
             Tensor want = java.ops().matmul(jx, right);
             Tensor ax = java.ops().unary(UnaryOp.ABS, jx);
             Tensor aw = java.ops().unary(UnaryOp.ABS, right);
             Tensor magnitude = java.ops().matmul(ax, aw)) {
            assertArrayEquals(want.shape().dims(), got.shape().dims(), what + ": shape");
            float[] a = mlx.toFloats(got);
            float[] e = java.toFloats(want);
            float[] m = java.toFloats(magnitude);
            for (int i = 0; i < a.length; i++) {
                double tol = 1e-5 * m[i] + Math.ulp(e[i]);
                int at = i;
                assertTrue(Math.abs(a[i] - e[i]) <= tol, () -> what + ": element " + at + " expected " + e[at] + " ±" + tol + ", found " + a[at]);
            }
        }
    }
}
