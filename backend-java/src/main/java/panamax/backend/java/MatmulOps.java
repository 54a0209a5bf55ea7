package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.Bf16Tiles;
import panamax.backend.java.kernel.Gemm;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.MultiRowMatVec;
import panamax.backend.java.kernel.Parallel;

/**
 * {@code matmul} with broadcast batch axes. Per batch it picks: the dot-per-row kernels when the
 * right side is a transposed row-major matrix (x·Wᵀ), whatever the left side's row count; an axpy
 * kernel for few rows against a row-major right side, and the blocked GEMM otherwise. Every path
 * gives a row of the left side the same bits whatever the other rows hold and however many there
 * are (see {@link #multiply}).
 */
final class MatmulOps {
    /** Left operands with at most this many rows take the axpy loop against a row-major right side. */
    static final int SMALL_M = 4;

    private final JavaBackend backend;

    MatmulOps(JavaBackend backend) {
        this.backend = backend;
    }

    JavaTensor matmul(JavaTensor a, JavaTensor b) {
        if (a.rank() < 2 || b.rank() < 2) {
            throw new IllegalArgumentException("matmul: expected operands of rank >= 2, found " + a.shape + " and " + b.shape);
        }
        int m = a.dims[a.rank() - 2];
        int k = a.dims[a.rank() - 1];
        int n = b.dims[b.rank() - 1];
        if (b.dims[b.rank() - 2] != k) {
            throw new IllegalArgumentException("matmul: inner dimensions differ: " + a.shape + " × " + b.shape);
        }
        int[] batch = broadcastBatch(a, b);
        int[] dims = new int[batch.length + 2];
        System.arraycopy(batch, 0, dims, 0, batch.length);
        dims[batch.length] = m;
        dims[batch.length + 1] = n;
        DType type = DTypes.promote(a.dtype, b.dtype);
        if (weightRowsPair(a, b)) {
            List<ProductWork> works = new ArrayList<>(1);
            JavaTensor out = planWeightRows(a, b, works, new PlacedInputs());
            try {
                ProductWork.runAll(backend.parallel, works);
                return out;
            } catch (RuntimeException | Error e) {
                out.close();
                throw e;
            }
        }
        if (b.rank() == 2 && a.rank() > 2) {
            // one right-hand matrix for every batch: fold the batch into rows, so W is streamed
            // once for all of them (batched decode) instead of once per batch entry
            int rows = (int) (a.elementCount() / Math.max(k, 1));
            try (JavaTensor flat = new ViewOps(backend).reshape(a, panamax.api.tensor.Shape.of(rows, k));
                 JavaTensor product = matmul(flat, b)) {
                return product.view(dims, JavaTensor.rowMajorStrides(dims), product.offset);
            }
        }
        JavaTensor out = backend.allocate(dims, type);
        long[] aBatch = batchStrides(a, batch);
        long[] bBatch = batchStrides(b, batch);
        int batches = 1;
        for (int d : batch) batches *= d;
        long flops = 2L * m * n * k;
        Parallel par = backend.parallel;
        int count = batches;
        // many matrices (attention heads): one per task; few big ones: split inside each
        if (batches >= 2 * par.threads() || batches > 1 && flops < 8_000_000) {
            par.forRange(batches, (int) Math.max(1, 2_000_000 / Math.max(flops, 1)),
                    (from, to) -> { for (int i = from; i < to; i++) one(a, b, out, i, batch, aBatch, bBatch, m, k, n); });
        } else {
            for (int i = 0; i < count; i++) one(a, b, out, i, batch, aBatch, bBatch, m, k, n);
        }
        return out;
    }

    private static int[] broadcastBatch(JavaTensor a, JavaTensor b) {
        int ra = a.rank() - 2;
        int rb = b.rank() - 2;
        int r = Math.max(ra, rb);
        int[] out = new int[r];
        for (int i = 0; i < r; i++) {
            int da = i - (r - ra) >= 0 ? a.dims[i - (r - ra)] : 1;
            int db = i - (r - rb) >= 0 ? b.dims[i - (r - rb)] : 1;
            if (da != db && da != 1 && db != 1) {
                throw new IllegalArgumentException("matmul: batch axes do not broadcast: " + a.shape + " × " + b.shape);
            }
            out[i] = da == 1 ? db : da;
        }
        return out;
    }

    /** Strides of x's batch axes aligned to {@code batch} (0 where broadcast). */
    static long[] batchStrides(JavaTensor x, int[] batch) {
        int rx = x.rank() - 2;
        long[] s = new long[batch.length];
        for (int i = 0; i < batch.length; i++) {
            int xi = i - (batch.length - rx);
            if (xi >= 0 && x.dims[xi] != 1) s[i] = x.strides[xi];
        }
        return s;
    }

    static long batchOffset(int index, int[] batch, long[] strides) {
        long off = 0;
        int rest = index;
        for (int i = batch.length - 1; i >= 0; i--) {
            off += (long) (rest % batch[i]) * strides[i];
            rest /= batch[i];
        }
        return off;
    }

    private void one(JavaTensor a, JavaTensor b, JavaTensor out, int index, int[] batch, long[] aBatch, long[] bBatch,
                     int m, int k, int n) {
        long aOff = a.offset + batchOffset(index, batch, aBatch);
        long bOff = b.offset + batchOffset(index, batch, bBatch);
        long sk = b.strides[b.rank() - 2];
        long sn = b.strides[b.rank() - 1];
        if (takesWeightRows(b, k, n)) {
            ProductWork.run(backend.parallel, weightRowsWork(a, aOff, m, k, n, b, bOff, out, (long) index * m * n, new PlacedInputs()));
            return;
        }
        float[] x = rows(a, aOff, m, k);
        float[] c = new float[m * n];
        multiply(x, m, k, n, b.segment(), b.dtype, bOff, sk, sn, c);
        store(out, (long) index * m * n, c);
    }

    /**
     * Independent products {@code a[i] × b[i]}, each as {@link #matmul} makes it, those against one matrix of contiguous
     * floating-point rows (a linear layer's transposed weight) run in one pass over the threads ({@link ProductWork#runAll}).
     */
    List<JavaTensor> matmuls(List<JavaTensor> as, List<JavaTensor> bs) {
        if (as.size() != bs.size()) throw new IllegalArgumentException("matmuls: " + as.size() + " left operands and " + bs.size() + " right");
        List<JavaTensor> outs = new ArrayList<>(as.size());
        List<ProductWork> works = new ArrayList<>();
        PlacedInputs placed = new PlacedInputs(); // products of one x (q, k and v) place it once
        try {
            for (int i = 0; i < as.size(); i++) {
                JavaTensor a = as.get(i), b = bs.get(i);
                outs.add(weightRowsPair(a, b) ? planWeightRows(a, b, works, placed) : matmul(a, b)); // matmul: its checks and other paths
            }
            ProductWork.runAll(backend.parallel, works);
            return outs;
        } catch (RuntimeException | Error e) {
            for (JavaTensor t : outs) t.close();
            throw e;
        }
    }

    /** Whether a × b is x·Wᵀ against one matrix of contiguous floating-point rows, the products {@link #planWeightRows} takes. */
    private static boolean weightRowsPair(JavaTensor a, JavaTensor b) {
        if (a.rank() < 2 || b.rank() != 2 || a.elementCount() == 0) return false;
        int k = a.dims[a.rank() - 1];
        return b.dims[0] == k && takesWeightRows(b, k, b.dims[1]);
    }

    /**
     * A new output for a × b ({@link #weightRowsPair}), a's leading axes folded into rows so W streams once for all of
     * them; x is prepared now and the rest of the product added to {@code works}.
     */
    private JavaTensor planWeightRows(JavaTensor a, JavaTensor b, List<ProductWork> works, PlacedInputs placed) {
        int k = a.dims[a.rank() - 1], n = b.dims[1];
        int rows = (int) (a.elementCount() / k);
        int[] dims = a.dims.clone();
        dims[dims.length - 1] = n;
        JavaTensor out = backend.allocate(dims, DTypes.promote(a.dtype, b.dtype));
        try (JavaTensor flat = a.rank() == 2 ? null : new ViewOps(backend).reshape(a, panamax.api.tensor.Shape.of(rows, k))) {
            JavaTensor x = flat == null ? a : flat;
            works.add(weightRowsWork(x, x.offset, rows, k, n, b, b.offset, out, 0, placed));
            return out;
        } catch (RuntimeException | Error e) {
            out.close();
            throw e;
        }
    }

    /** Whether x·b runs as {@link #weightRowsWork}: b's columns are W's rows, each contiguous floating-point values. */
    private static boolean takesWeightRows(JavaTensor b, int k, int n) {
        long sk = b.strides[b.rank() - 2];
        return (sk == 1 || k == 1) && b.dtype.isFloating() && n > 0;
    }

    /**
     * x·Wᵀ over floating-point W whose rows are contiguous (b [k, n] from element {@code bOff}, its column j W's row j;
     * every linear layer's weight): over bf16 tiles where the matrix has them ({@link #bf16Tiles}), else through
     * {@link MultiRowMatVec}: bf16 rows against x interleaved to match them, f32 and f16 rows widened into panels against
     * x as it is. x is read from its tensor now ({@link #prepareRows}); the work writes the results to {@code out} from
     * element {@code at}, each part of W's rows its own columns.
     */
    private ProductWork weightRowsWork(JavaTensor x, long xOff, int m, int k, int n, JavaTensor b, long bOff, JavaTensor out, long at,
                                       PlacedInputs placed) {
        int bytes = b.dtype.byteSize();
        long wOff = bOff * bytes, ld = b.strides[b.rank() - 1] * bytes;
        Bf16Tiles tiles = b.dtype == DType.BF16 ? bf16Tiles(b, wOff, ld, m, n, k) : null;
        if (tiles != null) return tilesWork(x, xOff, m, k, n, tiles, out, at, placed);
        Parallel par = backend.parallel;
        MemorySegment w = b.segment();
        boolean bf16 = b.dtype == DType.BF16;
        boolean f16 = b.dtype == DType.F16;
        float[] xr = new float[m * k];
        prepareRows(par, x, xOff, m, k, bf16
                ? (r, row) -> MatVec.interleaveForBf16(row, 0, k, xr, r * k)
                : (r, row) -> System.arraycopy(row, 0, xr, r * k, k));
        // weight rows per part, in multiples of four (the kernels stream four rows at a time)
        return columnWork(m, n, Math.max(1, 32768 / Math.max(k, 1) / 4), out, at, bf16
                ? (n0, n1, c) -> MultiRowMatVec.bf16(w, wOff, ld, k, xr, m, n0, n1, c, -n0, n1 - n0)
                : (n0, n1, c) -> MultiRowMatVec.widened(w, wOff, ld, f16, k, xr, m, n0, n1, c, -n0, n1 - n0));
    }

    /** What a repacked bf16 matrix was made from: where its rows start in their storage, their stride, its shape. */
    private record Bf16Key(long base, long rowBytes, int n, int k) {
    }

    /**
     * The tiles of bf16 W rows (row j at byte {@code wOff + j·ld} of w's storage), or null, decided at the matrix's first
     * product and kept: only a caller's segment (a loaded weight, {@link Storage#borrowed}) that nothing has written takes
     * tiles (the backend's own buffers hold activations and caches that a repack would not pay back), and only when that
     * first product has several x rows. A model's dense weights meet a prefill first, where tiles gain most; a
     * mixture-of-experts model's experts, one tensor each, meet single decode rows first, one expert at a time, and
     * repacking each there cost more than it gained (MoE preset bf16, batch 1: 9.5 tok/s against 28.5 without tiles),
     * while at batch 1 the lane-along-k rows stream nearly as fast.
     */
    private Bf16Tiles bf16Tiles(JavaTensor w, long wOff, long ld, int m, int n, int k) {
        Storage storage = w.storage;
        if (!Bf16Tiles.supports(k) || !storage.borrowed() || !storage.neverWritten()) return null;
        MemorySegment ws = w.segment();
        return storage.derived(new Bf16Key(wOff, ld, n, k),
                () -> m >= 2 && MemoryHeadroom.fits(Bf16Tiles.matrixBytes(n, k)) ? Bf16Tiles.repack(backend.parallel, ws, wOff, ld, n, k) : null);
    }

    /**
     * x·Wᵀ over bf16 tiles: x's rows placed as the tiles' kernels read them ({@link #prepareRows}), then each thread's
     * part of the tiles (whole groups of four) computes its columns for every x row and stores them.
     */
    private ProductWork tilesWork(JavaTensor x, long xOff, int m, int k, int n, Bf16Tiles tiles, JavaTensor out, long at, PlacedInputs placed) {
        float[] xr = placed.rows(x, xOff, m, k, tiles.widestBlock(), tiles.passRows(m), 0, () -> {
            float[] rows = new float[m * k];
            prepareRows(backend.parallel, x, xOff, m, k, (r, row) -> tiles.placeRow(row, r, m, rows));
            return new PlacedInputs.Rows(rows, null);
        }).placed();
        return tileWork(m, n, tiles.tiles(), Bf16Tiles.rowsPerTile(), tiles.passRows(m), Math.max(1, 32768 / Math.max(k, 1) / (4 * Bf16Tiles.rowsPerTile())),
                out, at, (r0, r1, t0, t1, c, width) -> tiles.multiply(xr, m, r0, r1, t0, t1, c, width));
    }

    /** What {@link #prepareRows} does with each x row (values in f32, reused for the next row). */
    @FunctionalInterface
    interface RowPreparation {
        void row(int r, float[] values);
    }

    /** One part of W's rows {@code [n0, n1)}: its results for every x row in {@code c[r·(n1 − n0) + n − n0]}. */
    @FunctionalInterface
    interface ColumnPart {
        void compute(int n0, int n1, float[] c);
    }

    /**
     * Hands each of x's m rows (of k values from element {@code xOff}, x's last two strides) to {@code prepare}, read
     * straight from the tensor, on every thread from {@link #PARALLEL_PREPARE_VALUES} values on: a product's
     * arranged copy of x was made on the calling thread alone while the helpers waited.
     */
    static void prepareRows(Parallel par, JavaTensor x, long xOff, int m, int k, RowPreparation prepare) {
        long sm = x.strides[x.rank() - 2];
        long sk = x.strides[x.rank() - 1];
        MemorySegment xs = x.segment();
        Parallel.Range rows = (r0, r1) -> {
            float[] row = new float[k];
            for (int r = r0; r < r1; r++) {
                RowIo.load(xs, x.dtype, xOff + r * sm, sk, k, row);
                prepare.row(r, row);
            }
        };
        if ((long) m * k >= PARALLEL_PREPARE_VALUES) par.forRange(m, Math.max(1, PARALLEL_PREPARE_VALUES / 4 / k), rows);
        else rows.run(0, m);
    }

    /**
     * W's n rows as work in quads (parts of at least {@code minQuads} for the threads); each part computes its columns
     * for all m x rows into its own array and stores them into {@code out} (row-major [m, n] from element {@code at}) on
     * the thread that computed them, so no m × n array is filled and then stored by the calling thread.
     */
    static ProductWork columnWork(int m, int n, int minQuads, JavaTensor out, long at, ColumnPart part) {
        MemorySegment os = out.segment();
        long base = out.offset + at;
        return new ProductWork((n + 3) / 4, minQuads, (q0, q1, buffer) -> {
            int n0 = 4 * q0, n1 = Math.min(n, 4 * q1), cols = n1 - n0;
            float[] c = new float[m * cols];
            part.compute(n0, n1, c);
            for (int r = 0; r < m; r++) RowIo.store(os, out.dtype, base + (long) r * n + n0, 1, cols, c, r * cols);
        });
    }

    /** One part of a matrix's tiles {@code [t0, t1)} against x rows {@code [r0, r1)}: results in {@code c[(r − r0)·width + j]}. */
    @FunctionalInterface
    interface TilePart {
        void compute(int r0, int r1, int t0, int t1, float[] c, int width);
    }

    /**
     * A matrix's {@code tiles} tiles of {@code lanes} rows as work in quads (parts of at least {@code minQuads} for the
     * threads; a batch-1 product streams four tiles at a time); each part computes its columns for the m
     * x rows a pass ({@code passRows}) at a time into its thread's buffer of one pass, and stores them in {@code out} (row-major
     * [m, n] from element {@code at}) on the thread that computed them, while they are still in its cache: a buffer of
     * all m rows was zeroed only to be overwritten (a 512-token prefill: 16 MiB per product of 8192 columns).
     */
    static ProductWork tileWork(int m, int n, int tiles, int lanes, int passRows, int minQuads, JavaTensor out, long at, TilePart part) {
        MemorySegment os = out.segment();
        long outBase = out.offset + at;
        return new ProductWork((tiles + 3) / 4, minQuads, (q0, q1, buffer) -> {
            int t0 = 4 * q0, t1 = Math.min(tiles, 4 * q1);
            int width = (t1 - t0) * lanes;
            int n0 = t0 * lanes, cols = Math.min(n, t1 * lanes) - n0;
            int size = Math.min(m, passRows) * width;
            // one buffer per thread and pass, grown if a later part is wider
            if (buffer[0] == null || buffer[0].length < size) buffer[0] = new float[size];
            float[] c = buffer[0];
            for (int r0 = 0; r0 < m; r0 += passRows) {
                int r1 = Math.min(m, r0 + passRows);
                part.compute(r0, r1, t0, t1, c, width);
                for (int r = r0; r < r1; r++) RowIo.store(os, out.dtype, outBase + (long) r * n + n0, 1, cols, c, (r - r0) * width);
            }
        });
    }

    /** x values (rows × k) from which x's rows are prepared for a product on all threads: a 32-token prefill at k = 2048. */
    static final int PARALLEL_PREPARE_VALUES = 65536;

    /**
     * {@code c[m, n] = x[m, k] · B} with B[kk, j] at element {@code bOff + kk·sk + j·sn} of {@code seg}, B not a
     * matrix of contiguous floating-point rows ({@link #weightRowsWork} takes those). Each element's sum runs in
     * one order whatever m is, so a row of x gives the same bits alone as in any batch: x·B (B's rows contiguous) is
     * one fused multiply-add chain over k per element, which the axpy loop (few rows) and {@link Gemm} (many) both run.
     */
    void multiply(float[] x, int m, int k, int n, MemorySegment seg, DType dtype, long bOff, long sk, long sn, float[] c) {
        Parallel par = backend.parallel;
        if (m <= SMALL_M && (sn == 1 || n == 1)) {
            int grain = Math.max(256, 65536 / Math.max(k, 1));
            par.forRange(n, grain, (n0, n1) -> {
                int w = n1 - n0;
                float[] row = new float[w];
                float[] acc = new float[m * w];
                for (int kk = 0; kk < k; kk++) {
                    RowIo.load(seg, dtype, bOff + kk * sk + n0 * sn, sn, w, row);
                    for (int r = 0; r < m; r++) MatVec.axpy(x[r * k + kk], row, 0, acc, r * w, w);
                }
                for (int r = 0; r < m; r++) System.arraycopy(acc, r * w, c, r * n + n0, w);
            });
            return;
        }
        Gemm.multiply(par, m, n, k, x, k, new TensorPanels(seg, dtype, bOff, sk, sn), c, n);
    }

    /** The [m, k] matrix at {@code off} of x (last two axes) as row-major f32. */
    static float[] rows(JavaTensor x, long off, int m, int k) {
        float[] out = new float[m * k];
        long sm = x.strides[x.rank() - 2];
        long sk = x.strides[x.rank() - 1];
        MemorySegment s = x.segment();
        float[] row = new float[k];
        for (int i = 0; i < m; i++) {
            RowIo.load(s, x.dtype, off + i * sm, sk, k, row);
            System.arraycopy(row, 0, out, i * k, k);
        }
        return out;
    }

    /** Writes f32 values into contiguous {@code out} at element {@code at}, rounding to its dtype. */
    static void store(JavaTensor out, long at, float[] values) {
        RowIo.store(out.segment(), out.dtype, out.offset + at, 1, values.length, values);
    }
}
