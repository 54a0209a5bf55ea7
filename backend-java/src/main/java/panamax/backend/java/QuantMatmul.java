package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import panamax.api.tensor.DType;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.AffineTiles;
import panamax.backend.java.kernel.BPanelSource;
import panamax.backend.java.kernel.Gemm;
import panamax.backend.java.kernel.MatVec;
import panamax.backend.java.kernel.Parallel;
import panamax.backend.java.kernel.QuantMatVec;
import panamax.backend.java.kernel.RowScales;
import panamax.backend.java.kernel.WidenedCodes;

/**
 * {@code x · W(ᵀ)} against an affine-quantized W, possibly batched ([..., N, K·b/32] with leading
 * axes broadcasting against x's). x·Wᵀ decodes blocks of W rows once for every x row (vectorized for
 * 2/4/8 bits); x·W takes an axpy loop for few x rows and the blocked GEMM with panels dequantized
 * on the fly for more, never the whole W. A row of x gets the same bits in any batch. Weights that nothing writes in
 * place (a model's) are repacked once into tiles of one row per lane ({@link AffineTiles}, kept with their storage;
 * 3-, 5- and 6-bit codes widened to 4 and 8 bits) and every later x·Wᵀ over them, of any number of rows, runs on the
 * tiles; where they get no tiles (narrower vectors, no room), 3-, 5- and 6-bit codes are copied once at 4 and 8 bits
 * ({@link WidenedCodes}) for the vector kernels.
 */
final class QuantMatmul {
    private QuantMatmul() {
    }

    /**
     * Checks the shapes, allocates the result and computes it, except a product over one matrix that its tiles or the
     * vector kernel take: that one's x is prepared and its work added to {@code deferred}, for the caller to run, alone
     * or in one pass with other products ({@link ProductWork#runAll}). The result holds its values once that ran.
     * {@code stable}: packed is the caller's tensor, not a copy made for this call, so a repacked form of it can be
     * kept for the next call. {@code placed}: x rows already placed for tiles by this call's other products.
     */
    static JavaTensor start(JavaBackend backend, JavaTensor x, JavaTensor packed, JavaTensor scales, JavaTensor biases,
                            int rows, int cols, int groupSize, int bits, long rowBytes, boolean transpose, QuantOps.ScalesAt scalesAt,
                            boolean stable, List<ProductWork> deferred, PlacedInputs placed) {
        int k = transpose ? cols : rows;
        int n = transpose ? rows : cols;
        if (x.rank() == 0 || x.dims[x.rank() - 1] != k) {
            throw new IllegalArgumentException("quantizedMatmul: expected x [..., " + k + "] for a " + (transpose ? "transposed " : "")
                    + "quantized matrix of " + rows + "×" + cols + ", found " + x.shape);
        }
        DType type = DTypes.promote(x.dtype, scales.dtype);
        int[] wBatch = Arrays.copyOf(packed.dims, packed.rank() - 2);
        JavaTensor xm;
        int[] outDims;
        int[] batch;
        if (wBatch.length == 0) {
            long r = x.elementCount() / Math.max(k, 1);
            xm = new ViewOps(backend).reshape(x, panamax.api.tensor.Shape.of((int) r, k));
            outDims = x.dims.clone();
            outDims[outDims.length - 1] = n;
            batch = new int[0];
        } else {
            int[] xd = x.rank() == 1 ? new int[] {1, k} : x.dims;
            int rb = Math.max(xd.length - 2, wBatch.length);
            batch = new int[rb];
            for (int i = 0; i < rb; i++) {
                int xi = i - (rb - (xd.length - 2));
                int wi = i - (rb - wBatch.length);
                int dx = xi >= 0 ? xd[xi] : 1;
                int dw = wi >= 0 ? wBatch[wi] : 1;
                if (dx != dw && dx != 1 && dw != 1) {
                    throw new IllegalArgumentException("quantizedMatmul: batch axes of x " + x.shape + " and w " + packed.shape + " do not broadcast");
                }
                batch[i] = dx == 1 ? dw : dx;
            }
            outDims = Arrays.copyOf(batch, rb + 2);
            outDims[rb] = xd[xd.length - 2];
            xm = x.rank() == 1 ? x.view(xd, new long[] {0, x.strides[0]}, x.offset) : x.view(x.dims, x.strides, x.offset);
            outDims[rb + 1] = n;
        }
        try (JavaTensor xv = xm) {
            int m = xv.dims[xv.rank() - 2];
            JavaTensor out = backend.allocate(outDims, type);
            long[] xb = MatmulOps.batchStrides(xv, batch);
            long[] pb = MatmulOps.batchStrides(packed, batch);
            long[] sb = MatmulOps.batchStrides(scales, batch);
            long[] bb = MatmulOps.batchStrides(biases, batch);
            int matrices = 1;
            for (int d : batch) matrices *= d;
            MemorySegment ps = packed.segment();
            boolean vectorKernel = transpose && QuantMatVec.supports(bits, k, groupSize);
            boolean tiled = transpose && stable && AffineTiles.supports(bits, k, groupSize) && packed.storage.neverWritten()
                    && scales.storage.neverWritten() && biases.storage.neverWritten();
            // codes the vector kernels take only widened (3, 5, 6 bits), where the weights get no tiles
            boolean widenable = transpose && stable && WidenedCodes.supports(bits, k, groupSize)
                    && packed.storage.neverWritten();
            boolean defer = matrices == 1;
            Parallel.Range body = (from, to) -> {
                for (int i = from; i < to; i++) {
                    long xOff = xv.offset + MatmulOps.batchOffset(i, batch, xb);
                    long sOff = scales.offset + MatmulOps.batchOffset(i, batch, sb);
                    long bOff = biases.offset + MatmulOps.batchOffset(i, batch, bb);
                    long base = (packed.offset + MatmulOps.batchOffset(i, batch, pb)) * 4;
                    AffineTiles tiles = tiled
                            ? tiles(backend.parallel, packed, scales, biases, base, sOff, bOff, rowBytes, n, k, bits, groupSize, scalesAt) : null;
                    RowScales params = scalesAt.at(sOff, bOff);
                    WidenedCodes widened = tiles == null && widenable ? widened(backend.parallel, packed, base, rowBytes, n, k, bits) : null;
                    // several matrices run on several threads: each places its own x (placed is one thread's)
                    ProductWork work = tiles != null ? tilesWork(backend.parallel, xv, xOff, tiles, groupSize, m, k, n, out, (long) i * m * n,
                            defer ? placed : new PlacedInputs())
                            : vectorKernel ? vectorWork(backend.parallel, xv, xOff, ps, base, rowBytes, bits, groupSize, params, m, k, n, out, (long) i * m * n)
                            : widened != null ? vectorWork(backend.parallel, xv, xOff, widened.codes(), 0, widened.rowBytes(), widened.bits(), groupSize,
                                    params, m, k, n, out, (long) i * m * n)
                            : null;
                    if (work != null) {
                        if (defer) deferred.add(work);
                        else ProductWork.run(backend.parallel, work);
                        continue;
                    }
                    float[] xr = MatmulOps.rows(xv, xOff, m, k);
                    float[] c = new float[m * n];
                    multiply(backend.parallel, ps, base, rowBytes, bits, groupSize, params, xr, m, k, n, transpose, c);
                    MatmulOps.store(out, (long) i * m * n, c);
                }
            };
            long flops = 2L * m * n * k;
            try {
                if (matrices >= 2 * backend.parallel.threads() || matrices > 1 && flops < 8_000_000) backend.parallel.forRange(matrices, (int) Math.max(1, 2_000_000 / Math.max(flops, 1)), body);
                else body.run(0, matrices);
            } catch (RuntimeException | Error e) {
                out.close();
                throw e;
            }
            return out;
        }
    }

    /** What a repacked matrix was made from: its codes' place in their storage, its parameters' tensors and format. */
    private record TilesKey(long base, long rowBytes, int n, int k, int bits, int groupSize, Storage scales, long scalesOffset,
                            long scalesRowStride, long scalesColumnStride, Storage biases, long biasesOffset, long biasesRowStride,
                            long biasesColumnStride, DType dtype) {
        /** The key of the matrix whose codes start at byte {@code base} and whose parameters start at {@code s} and {@code b}. */
        static TilesKey of(long base, long rowBytes, int n, int k, int bits, int gs, JavaTensor scales, long s, JavaTensor biases, long b) {
            int rs = scales.rank(), rb = biases.rank();
            return new TilesKey(base, rowBytes, n, k, bits, gs, scales.storage, s, scales.strides[rs - 2], scales.strides[rs - 1], biases.storage,
                    b, biases.strides[rb - 2], biases.strides[rb - 1], scales.dtype);
        }
    }

    /**
     * The repacked tiles of the matrix whose codes start at byte {@code base} of packed's storage, made on first use;
     * null where they would not fit in memory ({@link MemoryHeadroom}; decided once per matrix, {@link Storage#derived}).
     */
    private static AffineTiles tiles(Parallel par, JavaTensor packed, JavaTensor scales, JavaTensor biases, long base, long sOff, long bOff,
                                     long rowBytes, int n, int k, int bits, int gs, QuantOps.ScalesAt scalesAt) {
        Storage storage = packed.storage;
        TilesKey key = TilesKey.of(base, rowBytes, n, k, bits, gs, scales, sOff, biases, bOff);
        if (!storage.hasDerived(key)) repackStack(par, packed, scales, biases, base, sOff, bOff, rowBytes, n, k, bits, gs, scalesAt);
        MemorySegment ps = packed.segment();
        return storage.derived(key, () -> {
            RowScales params = scalesAt.at(sOff, bOff); // made only when the tiles are
            return MemoryHeadroom.fits(AffineTiles.matrixBytes(n, k, bits, gs, params.bf16()))
                    ? AffineTiles.repack(par, ps, base, rowBytes, n, k, bits, gs, params) : null;
        });
    }

    /** What a widened copy of codes was made from: the codes' place in their storage, their width, the matrix's shape. */
    private record WidenedKey(long base, long rowBytes, int n, int k, int bits) {
    }

    /**
     * The codes of the matrix at byte {@code base} of packed's storage widened for the vector kernels ({@link WidenedCodes}),
     * made on first use; null where they would not fit in memory (decided once per matrix, as tiles are).
     */
    private static WidenedCodes widened(Parallel par, JavaTensor packed, long base, long rowBytes, int n, int k, int bits) {
        MemorySegment ps = packed.segment();
        return packed.storage.derived(new WidenedKey(base, rowBytes, n, k, bits),
                () -> MemoryHeadroom.fits(WidenedCodes.bytes(n, k, bits)) ? WidenedCodes.widen(par, ps, base, rowBytes, n, k, bits) : null);
    }

    /**
     * Where the codes' storage holds a stack of matrices of this geometry exactly, and the scales' and biases' storages
     * hold their parameters stacked alike (experts stored as mlx-lm's {@code switch_mlp} and the MoE presets store them,
     * each expert's projection a view), every matrix of the stack is repacked now, in parallel, into one region
     * ({@link AffineTiles#repackAll}): a mixture-of-experts model would otherwise repack each expert at its first routed
     * token, well into generation, each in its own 4 KiB pages. Each matrix is keyed as
     * {@link #tiles} keys it, so a guess that does not hold for some view only makes tiles no call asks for.
     */
    private static void repackStack(Parallel par, JavaTensor packed, JavaTensor scales, JavaTensor biases, long base, long sOff, long bOff,
                                    long rowBytes, int n, int k, int bits, int gs, QuantOps.ScalesAt scalesAt) {
        long matrixBytes = n * rowBytes;
        int groups = k / gs;
        long matrixParams = (long) n * groups;
        long codeBytes = packed.segment().byteSize();
        if (matrixBytes <= 0 || codeBytes % matrixBytes != 0 || base % matrixBytes != 0) return;
        long count = codeBytes / matrixBytes;
        long paramBytes = count * matrixParams * scales.dtype.byteSize();
        if (count < 2 || count > 65536 || scales.segment().byteSize() != paramBytes || biases.segment().byteSize() != paramBytes) return;
        long first = base / matrixBytes;
        List<TilesKey> keys = new ArrayList<>();
        List<Long> bases = new ArrayList<>();
        List<RowScales> params = new ArrayList<>();
        Storage storage = packed.storage;
        for (long e = 0; e < count; e++) {
            long s = sOff + (e - first) * matrixParams, b = bOff + (e - first) * matrixParams;
            if (s < 0 || b < 0 || s + matrixParams > count * matrixParams || b + matrixParams > count * matrixParams) continue;
            TilesKey key = TilesKey.of(e * matrixBytes, rowBytes, n, k, bits, gs, scales, s, biases, b);
            if (storage.hasDerived(key)) continue;
            keys.add(key);
            bases.add(e * matrixBytes);
            params.add(scalesAt.at(s, b));
        }
        boolean bf16 = params.stream().allMatch(RowScales::bf16);
        if (keys.size() < 2 || !MemoryHeadroom.fits(keys.size() * AffineTiles.matrixBytes(n, k, bits, gs, bf16))) return;
        AffineTiles[] made = AffineTiles.repackAll(par, packed.segment(), bases.stream().mapToLong(Long::longValue).toArray(), rowBytes, n, k,
                bits, gs, params.toArray(RowScales[]::new));
        for (int i = 0; i < made.length; i++) {
            AffineTiles mine = made[i];
            if (storage.derived(keys.get(i), () -> mine) != mine) {
                mine.close(); // made meanwhile by another call
            }
        }
    }

    /**
     * One matrix x·Wᵀ over repacked tiles: x's rows placed as the tiles' kernels read them, with their group sums
     * ({@link MatmulOps#prepareRows}), then each thread's part of the tiles (whole groups of four, so a batch-1 product
     * streams four tiles at a time) computes its columns for every x row and stores them.
     */
    private static ProductWork tilesWork(Parallel par, JavaTensor x, long xOff, AffineTiles tiles, int gs, int m, int k, int n,
                                         JavaTensor out, long at, PlacedInputs placed) {
        int groups = k / gs;
        PlacedInputs.Rows rows = placed.rows(x, xOff, m, k, tiles.widestBlock(), tiles.passRows(m), gs, () -> {
            float[] xp = new float[m * k];
            float[] sums = new float[m * groups];
            MatmulOps.prepareRows(par, x, xOff, m, k, (r, row) -> {
                tiles.placeRow(row, r, m, xp);
                QuantMatVec.groupSums(row, 0, 1, k, gs, sums, r * groups);
            });
            return new PlacedInputs.Rows(xp, sums);
        });
        float[] xr = rows.placed(), xsums = rows.groupSums();
        return MatmulOps.tileWork(m, n, tiles.tiles(), AffineTiles.rowsPerTile(), tiles.passRows(m),
                Math.max(1, 16384 / Math.max(k, 1) / (4 * AffineTiles.rowsPerTile())),
                out, at, (r0, r1, t0, t1, c, width) -> tiles.multiply(xr, xsums, m, r0, r1, t0, t1, c, width));
    }

    /**
     * One matrix x·Wᵀ through {@link QuantMatVec#vector}, x read from its tensor and the results written to
     * {@code out} from element {@code at}: x's rows are arranged and summed by group on every thread for many rows
     * ({@link MatmulOps#prepareRows}) and each part of W's rows stores its own columns ({@link MatmulOps#columnWork}).
     * A prefill's x copy, its arranged copy, the m × n result array and the store used to run on the calling thread
     * alone while the helpers waited (about a fifth of the demo model's 512-token prefill products). A row's values
     * are the same whatever part of the work computes them.
     */
    private static ProductWork vectorWork(Parallel par, JavaTensor x, long xOff, MemorySegment ps, long base, long rowBytes, int bits, int gs,
                                          RowScales params, int m, int k, int n, JavaTensor out, long at) {
        int groups = k / gs;
        float[] xa = new float[m * k];
        float[] xsums = new float[m * groups];
        MatmulOps.prepareRows(par, x, xOff, m, k, (r, row) -> {
            QuantMatVec.arrange(row, 0, k, bits, xa, r * k);
            QuantMatVec.groupSums(row, 0, 1, k, gs, xsums, r * groups);
        });
        return MatmulOps.columnWork(m, n, Math.max(1, 16384 / Math.max(k, 1) / 4), out, at,
                (n0, n1, c) -> QuantMatVec.vector(ps, base, rowBytes, bits, gs, k, params, xa, xsums, m, n0, n1, c, -n0, n1 - n0));
    }

    /**
     * One matrix: each output element is summed in one order whatever m is, so a row of x gives the
     * same bits alone as in any batch. x·Wᵀ (linear layers, attention scores) at widths {@link #vectorWork}
     * does not take: {@link QuantMatVec#generic}'s dot product of the x row and the decoded W row. x·W (attention's p·V):
     * one fused multiply-add chain over k per element against MLX-rounded values, which the axpy loop
     * (few rows) and {@link Gemm} (many) both run.
     */
    private static void multiply(Parallel par, MemorySegment ps, long base, long rowBytes, int bits, int gs, RowScales params,
                                 float[] x, int m, int k, int n, boolean transpose, float[] c) {
        int groupsPerRow = (transpose ? k : n) / gs;
        if (transpose) {
            int quads = Math.max(1, 16384 / Math.max(k, 1) / 4);
            par.forEvenSplit((n + 3) / 4, quads, (q0, q1) ->
                    QuantMatVec.generic(ps, base, rowBytes, bits, gs, k, params, x, m, 4 * q0, Math.min(n, 4 * q1), c, n));
            return;
        }
        if (m <= MatmulOps.SMALL_M) {
            par.forRange(n, Math.max(gs, 65536 / Math.max(k, 1)), (n0, n1) -> {
                int w = n1 - n0;
                float[] s = new float[groupsPerRow];
                float[] b = new float[groupsPerRow];
                int[] codes = new int[w];
                float[] row = new float[w];
                float[] acc = new float[m * w];
                for (int kk = 0; kk < k; kk++) {
                    params.load(kk, s, b);
                    AffineCodes.dequantize(ps, base + kk * rowBytes, bits, gs, s, b, n0, n1, codes, row, 0);
                    for (int r = 0; r < m; r++) MatVec.axpy(x[r * k + kk], row, 0, acc, r * w, w);
                }
                for (int r = 0; r < m; r++) System.arraycopy(acc, r * w, c, r * n + n0, w);
            });
            return;
        }
        BPanelSource panels = (k0, kc, n0, nr, dst, off, width) -> {
            float[] s = new float[groupsPerRow];
            float[] b = new float[groupsPerRow];
            int[] codes = new int[nr];
            for (int kk = 0; kk < kc; kk++) {
                params.load(k0 + kk, s, b);
                AffineCodes.dequantize(ps, base + (k0 + kk) * rowBytes, bits, gs, s, b, n0, n0 + nr, codes, dst, off + kk * width);
                Arrays.fill(dst, off + kk * width + nr, off + kk * width + width, 0f);
            }
        };
        Gemm.multiply(par, m, n, k, x, k, panels, c, n);
    }
}
