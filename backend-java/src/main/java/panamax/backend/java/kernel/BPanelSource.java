package panamax.backend.java.kernel;

/**
 * The right operand B [K, N] of {@link Gemm}, read in panels. Implementations convert their
 * storage (f32, bf16, f16, strided, transposed or affine-quantized) to f32 while packing.
 * Must be safe to call from several threads at once.
 */
@FunctionalInterface
public interface BPanelSource {
    /**
     * Writes {@code dst[dstOff + kk·width + j] = B[k0 + kk, n0 + j]} for {@code kk < kc, j < nr},
     * and zeros for {@code nr <= j < width}.
     */
    void pack(int k0, int kc, int n0, int nr, float[] dst, int dstOff, int width);
}
