package panamax.backend.java.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs every Vector API kernel on small inputs until the JIT has compiled it. Before C2 compiles
 * them, Vector API calls run as plain Java objects (microseconds per vector op), so a model's
 * first attention or matmul call would otherwise take seconds. Done once per JVM, on a daemon
 * thread, so creating a backend never waits for it.
 */
public final class Warmup {
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static final int ROUNDS = 12_000;
    private static final int[] WIDTHS = {2, 3, 4, 5, 6, 8};

    private Warmup() {
    }

    /** Starts the warm-up unless it already ran in this JVM. */
    public static void startOnce() {
        if (!STARTED.compareAndSet(false, true)) return;
        Thread t = new Thread(Warmup::run, "panamax-java-backend-warmup");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    private static void run() {
        int k = 256;
        int n = 8;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment w = arena.allocate(4L * n * k, 64);
            float[] x = new float[4 * k];
            float[] out = new float[4 * n];
            float[] acc = new float[k];
            float[] scores = new float[k];
            int[] codes = new int[k];
            float[] s = new float[k / 32];
            float[] b = new float[k / 32];
            RowScales params = (row, scales, biases) -> { };
            BPanelSource panels = (k0, kc, n0, nr, dst, off, width) -> { };
            float[] a = new float[6 * 64];
            float[] c = new float[6 * 64];
            MemorySegment bf16 = arena.allocate(4L * k, 64);
            int[] table = new int[16];
            int[] lookups = new int[64];
            for (int j = 0; j < lookups.length; j++) lookups[j] = (j * 7) & 15;
            MemorySegment lookupSegment = MemorySegment.ofArray(lookups);
            int[] bigTable = new int[64];
            try (Parallel one = new Parallel(1)) {
                for (int i = 0; i < ROUNDS; i++) {
                    MatVec.bf16(w, 0, 2L * k, k, x, 1 + (i & 3), 0, 1, out, 0, n);
                    MatVec.f32(w, 0, 4L * k, k, x, 1, 0, 1, out, 0, n);
                    MatVec.axpy(0.5f, x, 0, acc, 0, k);
                    MatVec.dot(x, 0, acc, 0, k);
                    Floats.bf16ToFloats(w, 0, k, scores, 0);
                    VectorMath.expShifted(scores, 0, 64, 1f);
                    QuantMatVec.vector(w, 0, 4L * k * 4 / 32, 4, 32 << (i % 3), k, params, x, s, 1, 0, 1, out, n);
                    QuantMatVec.vector(w, 0, 4L * k * 8 / 32, 8, 64, k, params, x, s, 1, 0, 1, out, n);
                    QuantMatVec.vector(w, 0, 4L * k * 2 / 32, 2, 64, k, params, x, s, 1, 0, 1, out, n);
                    AffineCodes.dequantize(w, 0, 4, 32, s, b, 0, 64, codes, acc, 0);
                    if (i % 8 == 0) Gemm.multiply(one, 6, 64, 64, a, 64, panels, c, 64);
                    int bits = WIDTHS[i % WIDTHS.length];
                    AffineVectors.quantizeGroups(acc, 64, 32 << (i & 1), bits, codes, s, b);
                    AffineVectors.pack(codes, 64, bits, w, 0);
                    AffineVectors.unpackBlocks(w, 0, bits, 2, codes, 0);
                    AffineVectors.dequantizeBlocks(w, 0, bits, 2, s, b, 0, 5, acc, 0);
                    AffineVectors.dequantizeBlocksBf16(w, 0, bits, 2, s, b, 0, 5, bf16, 0);
                    TableLookup.lookup(table, lookupSegment, 0, 64, bf16, 0);
                    TableLookup.lookup(bigTable, lookupSegment, 0, 64, bf16, 0);
                    AffineCodes.dequantize(w, 0, bits, 32, s, b, 0, 64, codes, acc, 0);
                }
            }
        } catch (RuntimeException | Error e) {
            // warm-up is best effort: a failure here must never reach users
        }
    }
}
