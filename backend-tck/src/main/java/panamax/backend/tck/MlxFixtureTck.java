package panamax.backend.tck;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * MLX compatibility on real MLX 0.31.2 CPU outputs ({@code ../shared/fixtures/mlx-affine}, read from
 * system property {@code panamax.fixtures}): {@code quantize} must reproduce packed words, scales and
 * biases bit for bit (including 13,320 rounding ties), and {@code quantizedMatmul} must match MLX's
 * f32 outputs within the tolerance rule of {@link BackendTck} with magnitude Σ|x|·(|q·scale| + |bias|). The bf16×bf16
 * matmul cases are left out: MLX accumulates them in bf16, the api requires f32. A missing fixture fails.
 */
public abstract class MlxFixtureTck extends BackendTck {

    private static Ref ref(FixtureFile.Entry e) {
        return new Ref(e.dims(), e.values());
    }

    private static DType dtypeOf(FixtureFile.Entry e) {
        return e.dtype().equals("BF16") ? DType.BF16 : DType.F32;
    }

    @Test
    public void quantizeReproducesMlxOutputsBitForBit() {
        FixtureFile file = FixtureFile.open("mlx-affine/quantize.safetensors");
        for (int bits : backend().capabilities().quantizedBits()) {
            for (int group : backend().capabilities().groupSizes()) {
                for (String type : List.of("f32", "bf16")) {
                    String name = "b" + bits + "_g" + group + "_" + type;
                    FixtureFile.Entry input = file.get(name + ".input");
                    DType dtype = dtypeOf(input);
                    if (supported(dtype).isEmpty()) continue;
                    try (Tensor w = input(ref(input), dtype); QuantizedMatrix q = ops().quantize(w, group, bits)) {
                        assertExact(name + " packed", q.packed(), DType.U32, ref(file.get(name + ".packed")));
                        assertExact(name + " scales", q.scales(), dtype, ref(file.get(name + ".scales")));
                        assertExact(name + " biases", q.biases(), dtype, ref(file.get(name + ".biases")));
                    }
                }
            }
        }
    }

    @Test
    public void quantizedMatmulMatchesMlxOutputs() {
        FixtureFile file = FixtureFile.open("mlx-affine/quantized_matmul.safetensors");
        List<String> checked = new ArrayList<>();
        for (int bits : backend().capabilities().quantizedBits()) {
            if (!backend().capabilities().groupSizes().contains(64)) continue;
            for (String wType : List.of("f32", "bf16")) {
                for (String xType : List.of("f32", "bf16")) {
                    if (wType.equals("bf16") && xType.equals("bf16")) continue;
                    String name = "b" + bits + "_g64_w" + wType + "_x" + xType;
                    FixtureFile.Entry x = file.get(name + ".x");
                    FixtureFile.Entry scales = file.get(name + ".scales");
                    FixtureFile.Entry packed = file.get(name + ".packed");
                    FixtureFile.Entry out = file.get(name + ".out");
                    int rows = packed.dims()[0];
                    int cols = scales.dims()[1] * 64;
                    double[] terms = AffineReference.productMagnitude(AffineReference.unpack(packed.bits(), rows, cols, bits),
                            scales.values(), file.get(name + ".biases").values(), rows, cols, 64, bits);
                    double[] bound = References.matmul(ref(x).map(Math::abs), new Ref(new int[] {rows, cols}, terms).transpose(1, 0))
                            .value().values();
                    try (Tensor tx = input(ref(x), dtypeOf(x));
                         QuantizedMatrix q = new QuantizedMatrix(
                                 backend().fromInts(packed.bits(), new Shape(packed.dims()), DType.U32),
                                 input(ref(scales), dtypeOf(scales)), input(ref(file.get(name + ".biases")), dtypeOf(scales)), 64, bits);
                         Tensor r = ops().quantizedMatmul(tx, q, true)) {
                        assertClose(name, r, DType.F32, ref(out), bound);
                    }
                    checked.add(name);
                }
            }
        }
        org.junit.jupiter.api.Assertions.assertFalse(checked.isEmpty(), "no quantizedMatmul fixture case matches the backend's capabilities");
    }
}
