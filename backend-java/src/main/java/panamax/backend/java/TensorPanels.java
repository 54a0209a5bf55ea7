package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.BPanelSource;

/**
 * Panels of a strided matrix view {@code B[k, n] = element(base + k·sk + n·sn)} of any dtype for
 * {@link panamax.backend.java.kernel.Gemm}, with fast paths for k-contiguous (transposed row-major
 * weights) and n-contiguous (plain row-major) layouts. Borrowed segment; thread-safe.
 */
record TensorPanels(MemorySegment seg, DType dtype, long base, long sk, long sn) implements BPanelSource {
    @Override
    public void pack(int k0, int kc, int n0, int nr, float[] dst, int dstOff, int width) {
        if (sk == 1) {
            float[] row = new float[kc];
            for (int j = 0; j < nr; j++) {
                RowIo.load(seg, dtype, base + (n0 + j) * sn + k0, 1, kc, row);
                for (int kk = 0; kk < kc; kk++) dst[dstOff + kk * width + j] = row[kk];
            }
        } else {
            float[] row = new float[nr];
            for (int kk = 0; kk < kc; kk++) {
                RowIo.load(seg, dtype, base + (k0 + kk) * sk + n0 * sn, sn, nr, row);
                System.arraycopy(row, 0, dst, dstOff + kk * width, nr);
            }
        }
        if (nr < width) {
            for (int kk = 0; kk < kc; kk++) java.util.Arrays.fill(dst, dstOff + kk * width + nr, dstOff + kk * width + width, 0f);
        }
    }
}
