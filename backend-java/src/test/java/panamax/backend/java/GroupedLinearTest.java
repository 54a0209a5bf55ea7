package panamax.backend.java;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.GroupedLinearKernels;
import panamax.api.tensor.kernel.LinearWeight;

/**
 * One grouped call gives every product the bits of the same product run alone ({@code matmul} against
 * the transposed weight, or {@code quantizedMatmul}): float weights of each dtype, quantized ones of
 * vector and generic widths, padded rows, a transposed float weight (the op's fallback), several row counts, all in one
 * call; and it refuses mismatched arguments.
 */
class GroupedLinearTest {
    private final Random random = new Random(11);

    private float[] gaussian(int n, double scale) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (random.nextGaussian() * scale);
        return v;
    }

    @Test
    void everyProductHasTheBitsOfItsSingleProduct() {
        try (Backend backend = new JavaBackendProvider().create(new BackendOptions(3, java.util.Optional.empty(), java.util.Map.of()))) {
            Ops ops = backend.ops();
            GroupedLinearKernels grouped = backend.kernel(GroupedLinearKernels.class).orElseThrow();
            List<AutoCloseable> owned = new ArrayList<>();
            List<Tensor> inputs = new ArrayList<>();
            List<LinearWeight> weights = new ArrayList<>();
            int[][] shapes = {{1, 256, 96}, {3, 256, 130}, {5, 64, 17}, {1, 512, 300}, {2, 128, 64}, {1, 256, 40}};
            String[] kinds = {"bf16", "f32", "f16", "q8", "q4", "q3", "strided", "transposed", "q8"};
            for (int i = 0; i < kinds.length; i++) {
                int[] s = shapes[i % shapes.length];
                int m = s[0], k = s[1], n = s[2];
                Tensor x = backend.fromFloats(gaussian(m * k, 1), Shape.of(m, k), DType.F32);
                owned.add(x);
                inputs.add(x);
                Tensor w32 = backend.fromFloats(gaussian(n * k, 0.1), Shape.of(n, k), DType.F32);
                owned.add(w32);
                LinearWeight w = switch (kinds[i]) {
                    case "f32" -> LinearWeight.of(w32);
                    case "bf16", "f16" -> LinearWeight.of(keep(owned, ops.astype(w32, kinds[i].equals("bf16") ? DType.BF16 : DType.F16)));
                    case "strided" -> {
                        Tensor wide = keep(owned, backend.fromFloats(gaussian(n * 2 * k, 0.1), Shape.of(n, 2 * k), DType.F32));
                        yield LinearWeight.of(keep(owned, ops.slice(wide, 1, 0, k))); // rows of k, 2k apart
                    }
                    case "transposed" -> { // columns contiguous: not the row kernels' layout, so the op's fallback
                        Tensor kn = keep(owned, backend.fromFloats(gaussian(k * n, 0.1), Shape.of(k, n), DType.F32));
                        yield LinearWeight.of(keep(owned, ops.transpose(kn, 1, 0)));
                    }
                    default -> {
                        QuantizedMatrix q = ops.quantize(w32, 64, Integer.parseInt(kinds[i].substring(1)));
                        owned.add(q);
                        yield LinearWeight.of(q);
                    }
                };
                weights.add(w);
            }
            List<Tensor> ys = grouped.linear(inputs, weights);
            try {
                assertEquals(kinds.length, ys.size());
                for (int i = 0; i < kinds.length; i++) {
                    LinearWeight w = weights.get(i);
                    try (Tensor alone = single(ops, inputs.get(i), w)) {
                        assertEquals(DType.F32, ys.get(i).dtype(), kinds[i]);
                        assertEquals(Shape.of(inputs.get(i).dim(0), w.out()), ys.get(i).shape(), kinds[i]);
                        assertArrayEquals(bits(backend.toFloats(alone)), bits(backend.toFloats(ys.get(i))), kinds[i] + " product " + i);
                    }
                }
            } finally {
                for (Tensor y : ys) y.close();
                for (AutoCloseable a : owned.reversed()) close(a);
            }
        }
    }

    @Test
    void mismatchedArgumentsAreRefused() {
        try (Backend backend = new JavaBackendProvider().create(BackendOptions.defaults())) {
            GroupedLinearKernels grouped = backend.kernel(GroupedLinearKernels.class).orElseThrow();
            try (Tensor x = backend.fromFloats(new float[8], Shape.of(2, 4), DType.F32);
                 Tensor w = backend.fromFloats(new float[15], Shape.of(3, 5), DType.F32)) {
                assertThrows(IllegalArgumentException.class, () -> grouped.linear(List.of(x), List.of()));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> grouped.linear(List.of(x), List.of(LinearWeight.of(w))));
                assertTrue(e.getMessage().contains("inputs[0]"), e.getMessage());
            }
        }
    }

    private static Tensor keep(List<AutoCloseable> owned, Tensor t) {
        owned.add(t);
        return t;
    }

    private static Tensor single(Ops ops, Tensor x, LinearWeight w) {
        if (w.quantized() != null) return ops.quantizedMatmul(x, w.quantized(), true);
        try (Tensor t = ops.transpose(w.dense(), 1, 0)) {
            return ops.matmul(x, t);
        }
    }

    private static int[] bits(float[] v) {
        int[] b = new int[v.length];
        for (int i = 0; i < v.length; i++) b[i] = Float.floatToRawIntBits(v[i]);
        return b;
    }

    private static void close(AutoCloseable a) {
        try {
            a.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
