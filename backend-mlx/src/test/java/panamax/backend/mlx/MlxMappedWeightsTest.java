package panamax.backend.mlx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * bf16 weights handed over as shared native memory (as a mapped checkpoint is) are referenced in
 * place, counted as mapped bytes, and multiplied through the cached f32 copy that
 * {@link Root#widened} keeps: the product equals the one of the same weights copied in, and the
 * cache's bytes are active while the weights live and released with them.
 */
class MlxMappedWeightsTest {
    @Test
    void mappedBf16WeightsMultiplyLikeCopiedOnesAndReleaseTheirF32Copy() {
        MlxBackendProvider provider = new MlxBackendProvider();
        Assumptions.assumeTrue(provider.unavailableReason().isEmpty(),
                () -> "skipped: backend mlx unavailable: " + provider.unavailableReason().orElse(""));
        int n = 48;
        int k = 64;
        float[] w = new float[n * k];
        for (int i = 0; i < w.length; i++) w[i] = (float) Math.sin(i * 0.37) * 2;
        float[] x = new float[3 * k];
        for (int i = 0; i < x.length; i++) x[i] = (float) Math.cos(i * 0.11);
        try (Backend backend = provider.create(BackendOptions.defaults()); Arena shared = Arena.ofShared()) {
            MemorySegment bytes = shared.allocate((long) n * k * 2, 8);
            for (int i = 0; i < w.length; i++) bytes.setAtIndex(ValueLayout.JAVA_SHORT, i, HostValues.bf16Bits(w[i]));
            long before = backend.memoryStats().activeBytes();
            float[] fromMapped;
            float[] fromCopy;
            try (Tensor mapped = backend.fromSegment(bytes, Shape.of(n, k), DType.BF16);
                 Tensor copied = backend.fromFloats(w, Shape.of(n, k), DType.BF16);
                 Tensor xs = backend.fromFloats(x, Shape.of(3, k), DType.F32)) {
                assertEquals((long) n * k * 2, backend.memoryStats().mappedBytes(), "mapped bytes of the weights");
                try (Tensor wt = backend.ops().transpose(mapped, 1, 0); Tensor y = backend.ops().matmul(xs, wt);
                     Tensor ct = backend.ops().transpose(copied, 1, 0); Tensor z = backend.ops().matmul(xs, ct)) {
                    fromMapped = backend.toFloats(y);
                    fromCopy = backend.toFloats(z);
                    assertTrue(backend.memoryStats().activeBytes() - before >= (long) n * k * 4, "the f32 copy counts as active");
                }
            }
            assertArrayEquals(fromCopy, fromMapped, "mapped and copied bf16 weights give the same product");
            assertEquals(before, backend.memoryStats().activeBytes(), "active bytes once the weights closed");
            assertEquals(0, backend.memoryStats().mappedBytes(), "mapped bytes once the weights closed");
        }
    }
}
