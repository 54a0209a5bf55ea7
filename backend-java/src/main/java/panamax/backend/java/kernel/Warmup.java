package panamax.backend.java.kernel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs every Vector API kernel on small inputs until the JIT has compiled it. Before C2 compiles
 * them, Vector API calls run as plain Java objects (microseconds per vector op), so a model's
 * first attention or matmul call would otherwise take seconds. Done once per JVM, on a daemon
 * thread, so creating a backend never waits for it, and only until real work starts: on a
 * machine of few cores the warm-up (2.6 s of one core) otherwise competes with the model it is
 * meant to speed up (the demo model's 256-token generate took 5.7 s with it, 3.8 s without), and
 * the kernels real work calls compile from that work itself. The weight matrix-vector rows
 * ({@link QuantMatVec}) and attention's p·V ({@link ValueAccumulation}) are left to real work:
 * their loops are hot from a model's first step, and compiling them from 256-wide warm-up rows bought
 * nothing. Every segment here is native (see {@link TableLookup} on heap segments).
 */
public final class Warmup {
    private static final AtomicBoolean STARTED = new AtomicBoolean();
    private static volatile Thread thread;
    private static volatile boolean realWorkStarted;
    private static final int ROUNDS = 12_000;
    private static final int[] WIDTHS = {2, 3, 4, 5, 6, 8};
    private static final int CODEC_ROUNDS = 1_500;
    /** Up to 16 x rows (decode batches), as the row-blocked matmul kernels take them. */
    private static final int MULTI_ROWS = 16;
    /** x rows of a prefill's pass, which the affine tiles run through decoded groups ({@link AffineTiles#DECODED_MIN_ROWS}). */
    private static final int PREFILL_ROWS = AffineTiles.DECODED_MIN_ROWS;

    private Warmup() {
    }

    /** Starts the warm-up unless it already ran in this JVM. */
    public static void startOnce() {
        if (!STARTED.compareAndSet(false, true)) return;
        Thread t = new Thread(Warmup::run, "panamax-java-backend-warmup");
        thread = t;
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        t.start();
    }

    /**
     * Called as the backend's parallel ops start: the warm-up stops at its next round. Cheap after
     * the first call (one volatile read).
     */
    public static void realWork() {
        if (!realWorkStarted && Thread.currentThread() != thread) realWorkStarted = true;
    }

    private static void run() {
        int k = 256;
        int n = 8;
        // shared like every tensor's storage: code compiled against a confined session traps on the first real segment
        try (Arena arena = Arena.ofShared()) {
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
            // the multi-row kernels serve every decode batch (batch 1: four weight rows far apart)
            float[] xRows = new float[MULTI_ROWS * k];
            float[] outRows = new float[MULTI_ROWS * n];
            float[] xRowSums = new float[MULTI_ROWS * (k / 64)];
            float[] values = new float[CodeColumns.ROWS * k];
            float[] valueBias = new float[CodeColumns.ROWS * k / 64];
            codecKernels(arena); // first: the KV codecs run on every appended token
            // fused attention over encoded caches: affine widths and codebooks of 1 to 4 bits
            CodeColumns[] affineColumns = new CodeColumns[WIDTHS.length];
            CodeRows[] affineRows = new CodeRows[WIDTHS.length];
            for (int j = 0; j < WIDTHS.length; j++) {
                affineColumns[j] = new CodeColumns(WIDTHS[j], k, 64);
                affineRows[j] = new CodeRows(WIDTHS[j], k, 64);
            }
            CodeColumns[] bookColumns = new CodeColumns[4];
            CodeRows[] bookRows = new CodeRows[4];
            for (int bits = 1; bits <= 4; bits++) {
                bookColumns[bits - 1] = new CodeColumns(bits, k, 0);
                bookRows[bits - 1] = new CodeRows(bits, k, 0);
            }
            int[] bookBits = new int[16];
            float[] rowScales = new float[k];
            MemorySegment tileCodes = arena.allocate(64L * k, 64); // 64 rows of 8-bit codes, of 4-bit ones twice over, or 32 bf16 rows
            float[] tileOut = new float[PREFILL_ROWS * 64];
            float[] prefillRows = new float[PREFILL_ROWS * k];
            float[] prefillSums = new float[PREFILL_ROWS * (k / 64)];
            try (Parallel one = new Parallel(1);
                 AffineTiles tiles8 = AffineTiles.supports(8, k, 64) ? AffineTiles.repack(one, tileCodes, 0, k, 64, k, 8, 64, params) : null;
                 AffineTiles tiles4 = AffineTiles.supports(4, k, 64) ? AffineTiles.repack(one, tileCodes, 0, k / 2, 64, k, 4, 64, params) : null;
                 Bf16Tiles bf16Tiles = Bf16Tiles.supports(k) ? Bf16Tiles.repack(one, tileCodes, 0, 2L * k, 32, k) : null) {
                for (int i = 0; i < ROUNDS && !realWorkStarted; i++) {
                    MatVec.bf16(w, 0, 2L * k, k, x, 1 + (i & 3), 0, 1, out, 0, n);
                    MatVec.f32(w, 0, 4L * k, k, x, 1, 0, 1, out, 0, n);
                    MatVec.axpy(0.5f, x, 0, acc, 0, k);
                    MatVec.dot(x, 0, acc, 0, k);
                    Floats.bf16ToFloats(w, 0, k, scores, 0);
                    VectorMath.expShifted(scores, 0, 64, 1f);
                    VectorMath.sigmoidInPlace(scores, 64, (i & 1) == 0); // SiLU of every MLP
                    int width = i % WIDTHS.length;
                    long rowBytes = (long) k * WIDTHS[width] / 8;
                    affineColumns[width].affineScores(w, 0, rowBytes, params, x, 1 + (i & 3), 0, 4, out, n);
                    affineRows[width].affine(w, 0, rowBytes, params, x, 1 + (i & 3), k, 0, 4, values, valueBias);
                    int bookWidth = 1 + i % 4;
                    bookColumns[bookWidth - 1].codebookScores(w, 0, (long) k * bookWidth / 8, bookBits, rowScales, x, 1 + (i & 3), 0, 4, out, 0, n,
                            (i & 4) != 0);
                    bookRows[bookWidth - 1].codebook(w, 0, (long) k * bookWidth / 8, bookBits, rowScales, x, 1 + (i & 3), k, 0, 4, values);
                    AffineCodes.dequantize(w, 0, 4, 32, s, b, 0, 64, codes, acc, 0);
                    if (i % 8 == 0) Gemm.multiply(one, 6, 64, 64, a, 64, panels, c, 64);
                    AffineCodes.dequantize(w, 0, WIDTHS[i % WIDTHS.length], 32, s, b, 0, 64, codes, acc, 0);
                    int rows = 1 + i % MULTI_ROWS;
                    MultiRowMatVec.bf16(w, 0, 2L * k, k, xRows, rows, 0, n, outRows, 0, n);
                    int bits = i % 2 == 0 ? 8 : 4;
                    QuantMatVec.vector(w, 0, (long) k * bits / 8, bits, 64, k, params, xRows, xRowSums, rows, 0, n, outRows, n);
                    AffineTiles tiles = bits == 8 ? tiles8 : tiles4;
                    if (tiles != null) tiles.multiply(xRows, xRowSums, rows, 0, tiles.tiles(), tileOut, 64); // any x values do
                    // a prefill's pass: decoded groups (AffineTiles.multiplyDecoded)
                    if (tiles != null && i % 16 == 0) tiles.multiply(prefillRows, prefillSums, PREFILL_ROWS, 0, tiles.tiles(), tileOut, 64);
                    if (bf16Tiles != null) bf16Tiles.multiply(xRows, rows, 0, bf16Tiles.tiles(), tileOut, 64);
                }
            }
        } catch (RuntimeException | Error e) {
            // warm-up is best effort: a failure here must never reach users
        }
    }

    /**
     * The KV codec kernels (quantize, pack, block decode, table lookups) on runs as long as the
     * ops' sub-chunks (64 blocks of 32 codes), so that C2 compiles them with the loop profile they
     * meet in use; compiled from 2-block runs, their first large calls trapped back to the interpreter.
     */
    private static void codecKernels(Arena arena) {
        int n = 64 * 32;
        float[] values = new float[n];
        for (int j = 0; j < n; j++) values[j] = (j * 37 % 101) / 50f - 1;
        int[] codes = new int[n];
        float[] s = new float[n / 32];
        float[] b = new float[n / 32];
        float[] lo = new float[n / 32];
        float[] hi = new float[n / 32];
        float[] bf16Mins = new float[AffineEncoding.bf16Scratch(n, 32)];
        float[] bf16Maxs = new float[bf16Mins.length];
        MemorySegment packed = arena.allocate(4L * n * 8 / 32 + 256, 64);
        MemorySegment out = arena.allocate(4L * n, 64);
        int[] lookups = new int[n];
        for (int j = 0; j < n; j++) lookups[j] = (j * 7) & 15;
        MemorySegment lookupSegment = arena.allocate(4L * n, 64); // native: see TableLookup on heap segments
        MemorySegment.copy(lookups, 0, lookupSegment, java.lang.foreign.ValueLayout.JAVA_INT, 0, n);
        int[] table = new int[16];
        int[] bigTable = new int[64];
        for (int i = 0; i < CODEC_ROUNDS && !realWorkStarted; i++) {
            int bits = WIDTHS[i % WIDTHS.length];
            AffineVectors.quantizeGroups(values, n, 32 << (i % 3), bits, codes, s, b);
            AffineVectors.pack(codes, n, bits, packed, 0);
            if (AffineEncoding.supports(32 << (i % 3))) AffineEncoding.quantize(values, n, 32 << (i % 3), bits, lo, hi, s, b, packed, 0);
            if (AffineEncoding.quantizesBf16(64)) { // the bf16 encoder: widening and packing of every width
                AffineEncoding.quantizeBf16(out, 0, n, 32 << (i % 3), bits, values, bf16Mins, bf16Maxs, s, b, packed, 0);
            }
            if (AffineEncoding.supported()) AffineEncoding.pack(codes, n, 1 + i % 4, packed, 0); // codebook codes, 1 to 4 bits
            for (int j = 0; j < n; j++) values[j] = (j * 37 % 101) / 50f - 1; // the widening above overwrote them
            AffineVectors.unpackBlocks(packed, 0, bits, 64, codes, 0);
            AffineVectors.dequantizeBlocks(packed, 0, bits, 64, s, b, 0, 5, values, 0);
            AffineVectors.dequantizeBlocksBf16(packed, 0, bits, 64, s, b, 0, 6, out, 0);
            TableLookup.lookup(i % 2 == 0 ? table : bigTable, lookupSegment, 0, n, out, 0);
        }
        if (!realWorkStarted) CodebookVectors.warmUp(packed, 2_500); // past C2's invocation + loop thresholds for each kernel
    }
}
