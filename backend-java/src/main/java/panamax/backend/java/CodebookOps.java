package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;
import panamax.backend.java.kernel.AffineEncoding;
import panamax.backend.java.kernel.Bf16RowDecoder;
import panamax.backend.java.kernel.Bf16RowEncoder;
import panamax.backend.java.kernel.CodebookEncoding;
import panamax.backend.java.kernel.CodeColumns;
import panamax.backend.java.kernel.CodebookVectors;
import panamax.backend.java.kernel.HadamardVectors;
import panamax.backend.java.kernel.SketchVectors;

/**
 * Fused codebook ops: {@code codebookDequantize}, {@code codebookMatmul} (codes looked up while
 * multiplying, never a dense W), {@code codebookQuantize} (norm, boundary codes and packing written
 * straight into the result) and {@code hadamardRotate} (vector FWHT per row). Parallel over rows or
 * over (matrix, token chunk) pairs. Inputs borrowed, results owned by the caller. Thread-safe.
 */
final class CodebookOps {
    private static final int CHUNK_ROWS = 512;
    /** Rows encoded phase by phase together: TurboQuant 4/4 encode 4.6 GB/s one at a time, 5.3 by two, 5.7 by four, 5.6 by eight. */
    private static final int ENCODE_ROWS = 4;

    private final JavaBackend backend;
    private final ViewOps views;

    CodebookOps(JavaBackend backend, ViewOps views) {
        this.backend = backend;
        this.views = views;
    }

    /** A checked codebook matrix: words unit-stride (a copy otherwise), the codebook on the heap. */
    private record Parts(JavaTensor packed, JavaTensor scales, int[] lead, int rows, int cols, int bits, CodebookVectors.Table table,
                         boolean copied) implements AutoCloseable {
        long rowBytes() {
            return packed.strides[packed.rank() - 2] * 4;
        }

        int matrices() {
            return Dims.count(lead);
        }

        /** Byte of the first word of row {@code r} of matrix {@code m}. */
        long rowByte(int m, int r) {
            return (packed.offset + offset(m, lead, packed.strides)) * 4 + r * rowBytes();
        }

        /** The row scales of matrix {@code m} (all 1 without scales). */
        float[] scalesOf(int m) {
            float[] s = new float[rows];
            if (scales == null) {
                Arrays.fill(s, 1f);
            } else {
                RowIo.load(scales.segment(), DType.F32, scales.offset + offset(m, lead, scales.strides), scales.strides[scales.rank() - 2], rows, s);
            }
            return s;
        }

        @Override
        public void close() {
            if (copied) packed.close();
        }
    }

    /** The element index of each row's first element in its tensor's segment. */
    @FunctionalInterface
    private interface RowStarts {
        long of(int row);

        /** Rows of {@code cols} elements of x, rows numbered row-major over {@code lead}: index arithmetic only for views. */
        static RowStarts of(JavaTensor x, int[] lead, int cols) {
            return x.isContiguous() ? r -> x.offset + (long) r * cols : r -> x.offset + offset(r, lead, x.strides);
        }
    }

    /** Element offset of matrix {@code m} (row-major over {@code lead}) in a tensor with these strides. */
    private static long offset(int m, int[] lead, long[] strides) {
        long off = 0;
        for (int i = lead.length - 1; i >= 0; i--) {
            off += (long) (m % lead[i]) * strides[i];
            m /= lead[i];
        }
        return off;
    }

    /** Small helpers on dims. */
    private static final class Dims {
        static int count(int[] dims) {
            int n = 1;
            for (int d : dims) n *= d;
            return n;
        }
    }

    private Parts parts(CodebookMatrix w) {
        JavaTensor p = backend.check(w.packed(), "w.packed");
        JavaTensor cb = backend.check(w.codebook(), "w.codebook");
        JavaTensor s = w.rowScales() == null ? null : backend.check(w.rowScales(), "w.rowScales");
        float[] book = new float[cb.dims[0]];
        RowIo.load(cb.segment(), DType.F32, cb.offset, cb.strides[0], book.length, book);
        boolean copy = p.strides[p.rank() - 1] != 1 && p.dims[p.rank() - 1] != 1;
        JavaTensor words = copy ? views.copy(p) : p;
        return new Parts(words, s, Arrays.copyOf(p.dims, p.rank() - 2), w.rows(), w.cols(), w.bits(), CodebookVectors.Table.of(book), copy);
    }

    JavaTensor dequantize(CodebookMatrix w) {
        try (Parts q = parts(w)) {
            int[] dims = q.packed.dims.clone();
            dims[dims.length - 1] = q.cols;
            JavaTensor out = backend.allocate(dims, DType.F32);
            MemorySegment ps = q.packed.segment();
            MemorySegment os = out.segment();
            int total = q.matrices() * q.rows;
            backend.parallel.forRange(total, Math.max(1, 16384 / q.cols), (from, to) -> {
                int[] codes = new int[q.cols];
                RowCursor rows = new RowCursor(q, from);
                for (int i = from; i < to; i++) {
                    CodebookVectors.unpack(ps, rows.next(), q.bits, q.cols, codes, 0);
                    CodebookVectors.dequantizeRow(q.table, codes, q.cols, rows.scale(), os, (out.offset + (long) i * q.cols) * 4);
                }
            });
            return out;
        }
    }

    /**
     * Fused attention over codebook keys and values ({@link CodebookAttention}), or null when its
     * kernels do not serve them (the kernel then declines and the caller composes it). Shapes are already checked.
     */
    JavaTensor attention(JavaTensor q, CodebookMatrix keys, CodebookMatrix values, double scale, AttentionMask mask) {
        try (Parts k = parts(keys); Parts v = parts(values)) {
            if (k.packed.rank() != 4 || v.packed.rank() != 4 || !q.dtype.isFloating()) return null;
            CodebookAttention.Side ks = new CodebookAttention.Side(k.packed, k.scales, k.cols, k.bits, k.table);
            CodebookAttention.Side vs = new CodebookAttention.Side(v.packed, v.scales, v.cols, v.bits, v.table);
            if (!CodebookAttention.supports(ks, vs)) return null;
            return CodebookAttention.run(backend, q, ks, vs, scale, mask);
        }
    }

    /**
     * Fused attention whose scores add a sketch term ({@link CodebookAttention#runSketched}), or null when
     * its kernels do not serve these matrices or the two query tensors differ in dtype. Shapes are already checked.
     */
    JavaTensor attention(JavaTensor q, CodebookMatrix keys, JavaTensor qs, CodebookMatrix sketch, CodebookMatrix values, double scale,
                         AttentionMask mask) {
        try (Parts k = parts(keys); Parts s = parts(sketch); Parts v = parts(values)) {
            if (k.packed.rank() != 4 || s.packed.rank() != 4 || v.packed.rank() != 4 || !q.dtype.isFloating() || qs.dtype != q.dtype) {
                return null;
            }
            CodebookAttention.Side ks = new CodebookAttention.Side(k.packed, k.scales, k.cols, k.bits, k.table);
            CodebookAttention.Side ss = new CodebookAttention.Side(s.packed, s.scales, s.cols, s.bits, s.table);
            CodebookAttention.Side vs = new CodebookAttention.Side(v.packed, v.scales, v.cols, v.bits, v.table);
            if (!CodebookAttention.supports(ks, vs) || !CodebookAttention.supports(ss, vs)) return null;
            try (JavaTensor both = views.concat(List.of(q, qs), 3)) { // [B, Hq, Tq, D + Ds]: each row then its sketch row
                return CodebookAttention.runSketched(backend, both, ks, ss, vs, scale, mask);
            }
        }
    }

    JavaTensor matmul(JavaTensor x, CodebookMatrix w, boolean transpose) {
        try (Parts q = parts(w)) {
            int k = transpose ? q.cols : q.rows;
            int n = transpose ? q.rows : q.cols;
            if (x.rank() < 2 || x.dims[x.rank() - 1] != k) {
                throw new IllegalArgumentException("codebookMatmul: expected x [..., m, " + k + "] for a " + (transpose ? "transposed " : "")
                        + "codebook matrix " + w.packed().shape() + " of " + q.rows + "×" + q.cols + ", found " + x.shape);
            }
            int m = x.dims[x.rank() - 2];
            int[] xLead = Arrays.copyOf(x.dims, x.rank() - 2);
            int rank = Math.max(xLead.length, q.lead.length);
            int[] batch = new int[rank];
            for (int i = 0; i < rank; i++) {
                int xi = i - (rank - xLead.length);
                int wi = i - (rank - q.lead.length);
                int dx = xi >= 0 ? xLead[xi] : 1;
                int dw = wi >= 0 ? q.lead[wi] : 1;
                if (dx != dw && dx != 1 && dw != 1) {
                    throw new IllegalArgumentException("codebookMatmul: batch axes of x " + x.shape + " and w " + w.packed().shape() + " do not broadcast");
                }
                batch[i] = dx == 1 ? dw : dx;
            }
            int matrices = Dims.count(batch);
            long[] xb = MatmulOps.batchStrides(x, batch);
            int[] wIndex = new int[matrices]; // the w matrix (row-major over q.lead) each output matrix reads
            for (int i = 0; i < matrices; i++) {
                int rest = i;
                int wm = 0;
                int mul = 1;
                for (int a = rank - 1; a >= 0; a--) {
                    int idx = rest % batch[a];
                    rest /= batch[a];
                    int wi = a - (rank - q.lead.length);
                    if (wi >= 0) {
                        wm += (q.lead[wi] == 1 ? 0 : idx) * mul;
                        mul *= q.lead[wi];
                    }
                }
                wIndex[i] = wm;
            }
            int mPad = (m + CodebookVectors.ROW_BLOCK - 1) / CodebookVectors.ROW_BLOCK * CodebookVectors.ROW_BLOCK;
            float[][] xs = new float[matrices][];
            float[][] scales = new float[matrices][];
            for (int i = 0; i < matrices; i++) {
                xs[i] = Arrays.copyOf(MatmulOps.rows(x, x.offset + MatmulOps.batchOffset(i, batch, xb), m, k), mPad * k);
                scales[i] = q.scalesOf(wIndex[i]);
            }
            int[] outDims = Arrays.copyOf(batch, rank + 2);
            outDims[rank] = m;
            outDims[rank + 1] = n;
            JavaTensor out = backend.allocate(outDims, DType.F32);
            float[][] c = new float[matrices][];
            for (int i = 0; i < matrices; i++) c[i] = new float[mPad * n];
            MemorySegment ps = q.packed.segment();
            // each unit is one chunk of w's rows (tokens) of one matrix: x·Wᵀ's outputs are the chunk's own; x·W
            // (attention's p·V) is one unit per matrix, each element summed over every token in order (partial sums
            // of fixed token chunks would round a row differently once left padding moves its tokens across a chunk)
            int chunks = transpose ? (q.rows + CHUNK_ROWS - 1) / CHUNK_ROWS : 1;
            float[][] partial = transpose ? null : new float[matrices * chunks][];
            boolean direct = CodebookVectors.decodesDirectly(q.table, q.bits, q.cols); // codes read from their words, no unpacked copy
            // attention's q·Kᵀ: lanes over keys (CodeColumns), no lane sums
            boolean keysInLanes = transpose && q.table.bits() != null && CodeColumns.supports(q.bits, k);
            backend.parallel.forRange(matrices * chunks, 1, (from, to) -> {
                int[] codes = new int[(transpose ? 1 : CodebookVectors.TOKEN_BLOCK) * q.cols];
                long[] rowBytes = new long[CodebookVectors.TOKEN_BLOCK];
                float[] wts = new float[CodebookVectors.ROW_BLOCK * CodebookVectors.TOKEN_BLOCK];
                long[] blockRows = new long[CodebookVectors.SCORE_BLOCK];
                float[] vectors = CodebookVectors.scoreVectors();
                float[] sums = new float[CodebookVectors.ROW_BLOCK * CodebookVectors.SCORE_BLOCK];
                float[] rows4 = keysInLanes ? new float[CodeColumns.ROWS * k] : null;
                CodeColumns columns = keysInLanes ? new CodeColumns(q.bits, k, 0) : null;
                for (int u = from; u < to; u++) {
                    int i = u / chunks;
                    int r0 = (u % chunks) * CHUNK_ROWS;
                    int r1 = transpose ? Math.min(q.rows, r0 + CHUNK_ROWS) : q.rows;
                    int wm = wIndex[i];
                    float[] s = scales[i];
                    if (keysInLanes) {
                        for (int rb = 0; rb < m; rb += CodeColumns.ROWS) {
                            int rows = Math.min(CodeColumns.ROWS, m - rb);
                            System.arraycopy(xs[i], rb * k, rows4, 0, CodeColumns.ROWS * k); // rows past m are zero (xs is padded)
                            columns.codebookScores(ps, q.rowByte(wm, 0), q.rowBytes(), q.table.laneBits(), s, rows4, rows, r0, r1, c[i], rb * n, n, false);
                        }
                    } else if (transpose && direct) { // tokens in blocks whose sums are reduced together
                        for (int t0 = r0; t0 < r1; t0 += CodebookVectors.SCORE_BLOCK) {
                            int count = Math.min(CodebookVectors.SCORE_BLOCK, r1 - t0);
                            for (int t = 0; t < count; t++) blockRows[t] = q.rowByte(wm, t0 + t);
                            for (int rb = 0; rb < m; rb += CodebookVectors.ROW_BLOCK) {
                                int rows = Math.min(CodebookVectors.ROW_BLOCK, m - rb);
                                CodebookVectors.scoreRowsPacked(q.table, ps, blockRows, count, q.bits, k, xs[i], rb, rows, s, t0, c[i],
                                        rb * n + t0, n, vectors, sums);
                            }
                        }
                    } else if (transpose) {
                        for (int t = r0; t < r1; t++) {
                            CodebookVectors.unpack(ps, q.rowByte(wm, t), q.bits, q.cols, codes, 0);
                            for (int rb = 0; rb < m; rb += CodebookVectors.ROW_BLOCK) {
                                int rows = Math.min(CodebookVectors.ROW_BLOCK, m - rb);
                                CodebookVectors.scoreRow(q.table, codes, k, xs[i], rb, rows, s[t], c[i], rb * n + t, n);
                            }
                        }
                    } else {
                        float[] acc = new float[mPad * n];
                        for (int t0 = r0; t0 < r1; t0 += CodebookVectors.TOKEN_BLOCK) {
                            int count = Math.min(CodebookVectors.TOKEN_BLOCK, r1 - t0);
                            for (int t = 0; t < count; t++) {
                                rowBytes[t] = q.rowByte(wm, t0 + t);
                                if (!direct) CodebookVectors.unpack(ps, rowBytes[t], q.bits, q.cols, codes, t * q.cols);
                            }
                            for (int rb = 0; rb < mPad; rb += CodebookVectors.ROW_BLOCK) {
                                for (int qq = 0; qq < CodebookVectors.ROW_BLOCK; qq++) {
                                    for (int t = 0; t < count; t++) {
                                        wts[qq * CodebookVectors.TOKEN_BLOCK + t] = xs[i][(rb + qq) * k + t0 + t] * s[t0 + t];
                                    }
                                }
                                if (direct) CodebookVectors.accumulatePacked(q.table, ps, rowBytes, count, q.bits, n, wts, acc, rb * n);
                                else CodebookVectors.accumulate(q.table, codes, count, n, wts, acc, rb * n);
                            }
                        }
                        partial[u] = acc;
                    }
                }
            });
            for (int i = 0; i < matrices; i++) {
                if (!transpose) {
                    for (int ch = 0; ch < chunks; ch++) {
                        float[] p = partial[i * chunks + ch];
                        for (int j = 0; j < m * n; j++) c[i][j] += p[j];
                    }
                }
                RowIo.store(out.segment(), DType.F32, out.offset + (long) i * m * n, 1, m * n, c[i]);
            }
            return out;
        }
    }

    /** The values of a codebook op's 1-d parameter ({@code name}: boundaries or codebook), checked to be {@code [length]} for {@code bits}. */
    private static float[] parameterValues(JavaTensor t, int length, String name, int bits) {
        if (t == null || t.rank() != 1 || t.dims[0] != length) {
            throw new IllegalArgumentException(name + ": expected [" + length + "] for " + bits + " bits, found " + (t == null ? "none" : t.shape));
        }
        float[] v = new float[length];
        RowIo.load(t.segment(), t.dtype, t.offset, t.strides[0], length, v);
        return v;
    }

    /** {@code codebookQuantize}, of the rotated rows when {@code signs} is not null ({@code codebookQuantizeRotated}). */
    CodebookMatrix quantize(JavaTensor x, JavaTensor signs, JavaTensor codebook, JavaTensor boundaries, int bits) {
        int cols = x.rank() == 0 ? 0 : x.dims[x.rank() - 1];
        float[] b = parameterValues(boundaries, (1 << bits) - 1, "boundaries", bits);
        if (bits < 1 || bits > 8 || bits == 7 || cols == 0 || cols % (bits == 1 ? 64 : 32) != 0 || !x.dtype.isFloating()) {
            throw new IllegalArgumentException("codebookQuantize: expected floating x [..., a multiple of " + (bits == 1 ? 64 : 32)
                    + "] and bits 1..6 or 8, found " + x.dtype + " " + x.shape + " and " + bits + " bits");
        }
        int words = cols * bits / 32;
        int rows = (int) (x.elementCount() / cols);
        int[] pd = x.dims.clone();
        pd[pd.length - 1] = words;
        int[] nd = x.dims.clone();
        nd[nd.length - 1] = 1;
        JavaTensor packed = backend.allocate(pd, DType.U32);
        JavaTensor norms = backend.allocate(nd, DType.F32);
        MemorySegment xs = x.segment();
        MemorySegment ps = packed.segment();
        MemorySegment ns = norms.segment();
        int[] lead = Arrays.copyOf(x.dims, x.rank() - 1);
        long stride = x.strides[x.rank() - 1];
        if (signs != null && Integer.bitCount(cols) != 1) {
            throw new IllegalArgumentException("codebookQuantizeRotated: the last axis of x " + x.shape + " must be a power of two");
        }
        SignRows signRows = signs == null ? null : new SignRows(signs, lead, cols, x.shape);
        int[] table = CodebookEncoding.searchTable(b);
        boolean bytePack = AffineEncoding.supported() && cols % AffineEncoding.lanes() == 0; // codes packed straight into the plane
        boolean fromMasks = CodebookEncoding.packsFromMasks(bits, table) && cols % 16 == 0;
        // bf16 rows read, rotated and summed in one pass (no widened copy, no second read for the norm). Only the
        // rows themselves need to be unit-stride: a view of some tokens (a cache filled piece by piece) must take
        // the same path as the whole tensor, since the paths sum the norm in different orders
        boolean rotatesBf16 = signRows != null && stride == 1 && x.dtype == DType.BF16 && HadamardVectors.rotatesBf16(cols);
        boolean oneRowEncoder = rotatesBf16 && Bf16RowEncoder.encodes(cols, bits, table); // rows encoded in registers, one call each
        RowStarts starts = RowStarts.of(x, lead, cols);
        backend.parallel.forRange(rows, Math.max(1, 8192 / cols), (from, to) -> {
            if (oneRowEncoder) {
                encodeRows(from, to, xs, starts, cols, signRows, bits, table, ps, packed.offset, ns, norms.offset);
                return;
            }
            // rows go ENCODE_ROWS at a time, phase by phase: each row is one chain of dependent steps (load,
            // rotation, norm with a square root, search, packing), and the next row's step fills the
            // previous one's stalls
            float[][] row = new float[ENCODE_ROWS][cols];
            float[][] sign = new float[ENCODE_ROWS][cols];
            float[][] factors = rotatesBf16 ? new float[ENCODE_ROWS][cols] : null;
            int[][] codes = new int[ENCODE_ROWS][cols];
            float[] norm = new float[ENCODE_ROWS];
            long[] current = new long[ENCODE_ROWS];
            Arrays.fill(current, -1);
            int[] out = new int[words];
            // AffineEncoding.pack stores whole vectors, past a row's end (a row of 3-bit codes is 48 bytes): its rows go
            // through a staging buffer with room for one more vector, copied once (native, as the plane is: heap and
            // native segments at one store site run both slowly). packedCodes writes each row's bytes exactly.
            MemorySegment stage = !fromMasks && bytePack ? staging(ENCODE_ROWS * words * 4L + 64) : null;
            for (int r0 = from; r0 < to; r0 += ENCODE_ROWS) {
                int count = Math.min(ENCODE_ROWS, to - r0);
                if (rotatesBf16) {
                    for (int i = 0; i < count; i++) {
                        long run = signRows.loadRun(r0 + i, current[i], sign[i]);
                        if (run != current[i]) { // the run's signs as the rotation's multipliers, once per run
                            HadamardVectors.bf16Factors(sign[i], cols, factors[i]);
                            current[i] = run;
                        }
                        long at = starts.of(r0 + i);
                        norm[i] = (float) Math.sqrt(HadamardVectors.rotateBf16(xs, at * 2, cols, factors[i], row[i]));
                    }
                } else {
                    for (int i = 0; i < count; i++) {
                        int r = r0 + i;
                        // a row's offsets by index arithmetic only where views need it: the divisions cost as much as the rotation
                        RowIo.load(xs, x.dtype, starts.of(r), stride, cols, row[i]);
                    }
                    if (signRows != null) {
                        for (int i = 0; i < count; i++) {
                            current[i] = signRows.loadRun(r0 + i, current[i], sign[i]);
                            HadamardVectors.transform(row[i], cols, sign[i], null);
                        }
                    }
                    for (int i = 0; i < count; i++) norm[i] = (float) Math.sqrt(CodebookEncoding.sumOfSquares(row[i], cols));
                }
                if (!fromMasks) {
                    for (int i = 0; i < count; i++) CodebookEncoding.codes(row[i], cols, Math.max(norm[i], Float.MIN_NORMAL), b, table, codes[i]);
                }
                for (int i = 0; i < count; i++) {
                    int r = r0 + i;
                    long wordByte = (packed.offset + (long) r * words) * 4;
                    if (fromMasks) { // codes packed straight from the search's masks and registers (CodebookEncoding.packedCodes)
                        CodebookEncoding.packedCodes(row[i], cols, Math.max(norm[i], Float.MIN_NORMAL), bits, table, ps, wordByte);
                    } else if (bytePack) {
                        AffineEncoding.pack(codes[i], cols, bits, stage, (long) i * words * 4, stage.byteSize());
                    } else {
                        CodebookEncoding.pack(codes[i], cols, bits, out);
                        MemorySegment.copy(out, 0, ps, RowIo.I32, wordByte, words);
                    }
                    ns.setAtIndex(RowIo.F32, norms.offset + r, norm[i]);
                }
                if (stage != null) MemorySegment.copy(stage, 0, ps, (packed.offset + (long) r0 * words) * 4, (long) count * words * 4);
            }
        });
        return new CodebookMatrix(packed, codebook, norms, bits);
    }

    /**
     * Rows {@code [from, to)} of bf16 x with unit-stride rows (row r's first element at {@code starts.of(r)}) by {@link Bf16RowEncoder}: codes into
     * the plane, norms into their tensor. A row it refuses (NaN, infinity, overflow) is rotated and coded the general way.
     */
    private static void encodeRows(int from, int to, MemorySegment xs, RowStarts starts, int cols, SignRows signRows, int bits, int[] table,
            MemorySegment ps, long packedOffset, MemorySegment ns, long normsOffset) {
        float[] sign = new float[cols];
        float[] factors = new float[cols];
        long current = -1;
        int words = cols * bits / 32;
        boolean pairs = cols == 64;
        float[] signB = new float[cols];
        float[] factorsB = new float[cols];
        float[] pairNorms = new float[2];
        float[] refused = new float[cols]; // a refused row's rotation
        long currentB = -1;
        for (int r = from; r < to; r++) {
            long run = signRows.loadRun(r, current, sign);
            if (run != current) { // the run's signs as the rotation's multipliers, once per run
                HadamardVectors.bf16Factors(sign, cols, factors);
                current = run;
            }
            long srcByte = starts.of(r) * 2;
            long wordByte = (packedOffset + (long) r * words) * 4;
            if (pairs && r + 1 < to) {
                long runB = signRows.loadRun(r + 1, currentB, signB);
                if (runB != currentB) {
                    HadamardVectors.bf16Factors(signB, cols, factorsB);
                    currentB = runB;
                }
                if (Bf16RowEncoder.encodePairOf64(xs, srcByte, factors, starts.of(r + 1) * 2, factorsB, bits, table, ps, wordByte, wordByte + 4L * words, pairNorms)) {
                    ns.setAtIndex(RowIo.F32, normsOffset + r, pairNorms[0]);
                    ns.setAtIndex(RowIo.F32, normsOffset + r + 1, pairNorms[1]);
                    r++;
                    continue;
                }
            }
            float norm = Bf16RowEncoder.encode(xs, srcByte, cols, factors, bits, table, ps, wordByte);
            if (norm < 0) {
                norm = (float) Math.sqrt(HadamardVectors.rotateBf16(xs, srcByte, cols, factors, refused));
                CodebookEncoding.packedCodes(refused, cols, Math.max(norm, Float.MIN_NORMAL), bits, table, ps, wordByte);
            }
            ns.setAtIndex(RowIo.F32, normsOffset + r, norm);
        }
    }

    /** Per thread: a native staging buffer for packed rows, grown as needed (freed with the thread). */
    private static final ThreadLocal<MemorySegment> STAGING = ThreadLocal.withInitial(() -> MemorySegment.NULL);

    private static MemorySegment staging(long bytes) {
        MemorySegment s = STAGING.get();
        if (s.byteSize() < bytes) {
            s = java.lang.foreign.Arena.ofAuto().allocate(Math.max(bytes, 4096), 64);
            STAGING.set(s);
        }
        return s.asSlice(0, bytes);
    }

    JavaTensor hadamard(JavaTensor x, JavaTensor signs, boolean inverse) {
        int n = x.rank() == 0 ? 0 : x.dims[x.rank() - 1];
        if (Integer.bitCount(n) != 1 || !x.dtype.isFloating()) {
            throw new IllegalArgumentException("hadamardRotate: expected floating x [..., a power of two], found " + x.dtype + " " + x.shape);
        }
        if (signs.rank() == 0 || signs.rank() > x.rank() || signs.dims[signs.rank() - 1] != n) {
            throw new IllegalArgumentException("hadamardRotate: signs " + signs.shape + " do not broadcast to x " + x.shape + " along its last axis");
        }
        int[] lead = Arrays.copyOf(x.dims, x.rank() - 1);
        SignRows signRows = new SignRows(signs, lead, n, x.shape);
        int rows = (int) (x.elementCount() / n);
        JavaTensor out = backend.allocate(x.dims.clone(), DType.F32);
        MemorySegment xs = x.segment();
        MemorySegment os = out.segment();
        long stride = x.strides[x.rank() - 1];
        backend.parallel.forRange(rows, Math.max(1, 16384 / n), (from, to) -> {
            float[] row = new float[n];
            float[] sign = new float[n];
            long current = -1;
            for (int r = from; r < to; r++) {
                current = signRows.loadRun(r, current, sign);
                RowIo.load(xs, x.dtype, x.offset + offset(r, lead, x.strides), stride, n, row);
                HadamardVectors.transform(row, n, inverse ? null : sign, inverse ? sign : null);
                MemorySegment.copy(row, 0, os, RowIo.F32, (out.offset + (long) r * n) * 4, n);
            }
        });
        return out;
    }

    /**
     * {@code codebookQuantizeRotatedSketched}: per row, one pass through the rotation (bf16 rows read and rotated in
     * registers), the codes and their values, the residual, the sketch's Hadamard blocks and its sign bits.
     */
    SketchedCodes quantizeSketched(JavaTensor x, JavaTensor signs, JavaTensor codebook, JavaTensor boundaries, int bits,
                                   List<JavaTensor> sketchSigns) {
        int n = x.rank() == 0 ? 0 : x.dims[x.rank() - 1];
        if (!x.dtype.isFloating() || Integer.bitCount(n) != 1 || n < 64) {
            throw new IllegalArgumentException("codebookQuantizeRotatedSketched: expected floating x [..., a power of two of at least 64], found "
                    + x.dtype + " " + x.shape);
        }
        if (sketchSigns.isEmpty()) throw new IllegalArgumentException("codebookQuantizeRotatedSketched: expected one or more sketch sign tensors, found none");
        float[] b = null;
        float[] book = null;
        if (bits != 0) {
            if (bits < 1 || bits > 8 || bits == 7) {
                throw new IllegalArgumentException("codebookQuantizeRotatedSketched: bits: expected 0 (no codes), 1..6 or 8, found " + bits);
            }
            b = parameterValues(boundaries, (1 << bits) - 1, "boundaries", bits);
            book = parameterValues(codebook, 1 << bits, "codebook", bits);
        }
        int[] lead = Arrays.copyOf(x.dims, x.rank() - 1);
        SignRows signRows = new SignRows(signs, lead, n, x.shape);
        SketchBlocks blocks = new SketchBlocks(sketchSigns, lead, n, x.shape);
        int rows = (int) (x.elementCount() / n);
        int words = n * bits / 32;
        int[] nd = x.dims.clone();
        nd[nd.length - 1] = 1;
        int[] sd = x.dims.clone();
        sd[sd.length - 1] = n / 32;
        int[] cd = x.dims.clone();
        cd[cd.length - 1] = words;
        JavaTensor codes = bits == 0 ? null : backend.allocate(cd, DType.U32);
        JavaTensor norms = backend.allocate(nd, DType.F32);
        JavaTensor sketch = backend.allocate(sd, DType.U32);
        JavaTensor residualNorms = backend.allocate(nd.clone(), DType.F32);
        float[] bounds = b;
        int[] table = b == null ? null : CodebookEncoding.searchTable(b);
        CodebookVectors.Table values = book == null ? null : CodebookVectors.Table.of(book);
        RowStarts starts = RowStarts.of(x, lead, n);
        // unit-stride rows suffice (see quantize): a view of some tokens takes the whole tensor's path
        boolean rotatesBf16 = x.strides[x.rank() - 1] == 1 && x.dtype == DType.BF16 && HadamardVectors.rotatesBf16(n);
        boolean fromMasks = table != null && CodebookEncoding.packsFromMasks(bits, table) && n % 16 == 0;
        boolean packed4 = values != null && CodebookVectors.looksUpPacked4(values, bits, n);
        boolean windows = values != null && CodebookVectors.looksUpWindows(values, bits, n);
        MemorySegment xs = x.segment();
        long stride = x.strides[x.rank() - 1];
        // scratch once per participating thread, not per chunk
        backend.parallel.forRange(rows, Math.max(1, 8192 / n), () -> new SketchScratch(n, words, blocks), (from, to, scratch) -> {
            float[] row = scratch.row;
            float[] approx = scratch.approx;
            float[] residual = scratch.residual;
            float[] sign = scratch.sign;
            float[] factors = scratch.factors;
            SketchBlocks.Cursor block = scratch.block;
            int[] rowCodes = scratch.codes;
            int[] rowWords = scratch.words;
            long run = -1; // the factors follow the sign row: recomputed on each chunk's first row
            for (int r = from; r < to; r++) {
                long next = signRows.loadRun(r, run, sign);
                if (next != run && rotatesBf16) HadamardVectors.bf16Factors(sign, n, factors);
                run = next;
                float normSquared;
                long at = starts.of(r);
                if (rotatesBf16) {
                    normSquared = HadamardVectors.rotateBf16(xs, at * 2, n, factors, row);
                } else {
                    RowIo.load(xs, x.dtype, at, stride, n, row);
                    HadamardVectors.transform(row, n, sign, null);
                    normSquared = CodebookEncoding.sumOfSquares(row, n);
                }
                float norm = (float) Math.sqrt(normSquared);
                float d = Math.max(norm, Float.MIN_NORMAL);
                if (codes != null) {
                    long wordByte = (codes.offset + (long) r * words) * 4;
                    if (fromMasks) { // packed from the search's masks, then looked up from the plane's bytes just written
                        CodebookEncoding.packedCodes(row, n, d, bits, table, codes.segment(), wordByte);
                        lookUp(bits, values, codes.segment(), wordByte, n, 1f, packed4, windows, rowCodes, approx);
                    } else {
                        CodebookEncoding.codes(row, n, d, bounds, table, rowCodes);
                        CodebookEncoding.pack(rowCodes, n, bits, rowWords);
                        MemorySegment.copy(rowWords, 0, codes.segment(), RowIo.I32, wordByte, words);
                        CodebookVectors.lookupRow(values, rowCodes, n, 1f, approx);
                    }
                }
                float residualSquared = SketchVectors.residual(row, n, d, codes == null ? null : approx, residual);
                for (int k = 0; k < blocks.count(); k++) HadamardVectors.transform(residual, n, block.signs(k, r), null);
                SketchVectors.signBits(residual, n, sketch.segment(), (sketch.offset + (long) r * (n / 32)) * 4);
                norms.segment().setAtIndex(RowIo.F32, norms.offset + r, norm);
                residualNorms.segment().setAtIndex(RowIo.F32, residualNorms.offset + r, (float) Math.sqrt(residualSquared) * norm);
            }
        });
        return new SketchedCodes(codes, norms, sketch, residualNorms);
    }

    /**
     * {@code codebookDequantizeRotatedSketched}: per row, one pass through the sketch's signs, its transposed Hadamard
     * blocks, the codes' values and the un-rotation, stored in {@code dtype}.
     */
    JavaTensor dequantizeSketched(CodebookMatrix w, CodebookMatrix sketch, List<JavaTensor> sketchSigns, JavaTensor signs, DType dtype) {
        if (!dtype.isFloating()) throw new IllegalArgumentException("codebookDequantizeRotatedSketched: expected a floating dtype, found " + dtype);
        if (sketch.bits() != 1) throw new IllegalArgumentException("codebookDequantizeRotatedSketched: expected a 1-bit sketch, found " + sketch.bits() + " bits");
        if (sketchSigns.isEmpty()) throw new IllegalArgumentException("codebookDequantizeRotatedSketched: expected one or more sketch sign tensors, found none");
        if (w != null && !Arrays.equals(dimsBefore(w.packed()), dimsBefore(sketch.packed()))) {
            throw new IllegalArgumentException("codebookDequantizeRotatedSketched: codes " + w.packed().shape() + " and sketch "
                    + sketch.packed().shape() + " do not hold the same rows");
        }
        if (w != null && w.cols() != sketch.cols()) {
            throw new IllegalArgumentException("codebookDequantizeRotatedSketched: codes of rows of " + w.cols() + " and a sketch of rows of "
                    + sketch.cols() + " do not match");
        }
        try (Parts qs = parts(sketch); Parts qw = w == null ? null : parts(w)) {
            int n = qs.cols;
            if (Integer.bitCount(n) != 1) {
                throw new IllegalArgumentException("codebookDequantizeRotatedSketched: rows of " + n + " in " + sketch.packed().shape() + " are not a power of two");
            }
            int[] dims = qs.packed.dims.clone();
            dims[dims.length - 1] = n;
            int[] lead = Arrays.copyOf(dims, dims.length - 1);
            SignRows signRows = new SignRows(signs, lead, n, new Shape(dims));
            SketchBlocks blocks = new SketchBlocks(sketchSigns, lead, n, new Shape(dims));
            JavaTensor out = backend.allocate(dims, dtype);
            MemorySegment os = out.segment();
            MemorySegment ss = qs.packed.segment();
            MemorySegment ws = qw == null ? null : qw.packed.segment();
            boolean packed4 = qw != null && CodebookVectors.looksUpPacked4(qw.table, qw.bits, n);
            boolean windows = qw != null && CodebookVectors.looksUpWindows(qw.table, qw.bits, n);
            float low = qs.table.book()[0];
            float high = qs.table.book()[1];
            boolean vectorBf16 = dtype == DType.BF16 && CodebookVectors.supported();
            backend.parallel.forRange(qs.matrices() * qs.rows, Math.max(1, 8192 / n), () -> new SketchScratch(n, 0, blocks),
                    (from, to, scratch) -> {
                float[] row = scratch.row;
                float[] term = scratch.residual;
                float[] sign = scratch.sign;
                SketchBlocks.Cursor block = scratch.block;
                int[] codes = scratch.codes;
                long run = -1;
                RowCursor sketchCursor = new RowCursor(qs, from);
                RowCursor codeCursor = qw == null ? null : new RowCursor(qw, from);
                for (int i = from; i < to; i++) {
                    long sketchByte = sketchCursor.next();
                    float scale = sketchCursor.scale();
                    SketchVectors.expandSigns(ss, sketchByte, n, low * scale, high * scale, term);
                    for (int k = blocks.count() - 1; k >= 0; k--) HadamardVectors.transform(term, n, null, block.signs(k, i));
                    float[] sum = term;
                    if (codeCursor != null) {
                        long codeByte = codeCursor.next();
                        lookUp(qw, ws, codeByte, codeCursor.scale(), packed4, windows, codes, row);
                        SketchVectors.add(row, term, n);
                        sum = row;
                    }
                    run = signRows.loadRun(i, run, sign);
                    HadamardVectors.transform(sum, n, null, sign);
                    if (vectorBf16) CodebookVectors.storeBf16(sum, n, os, (out.offset + (long) i * n) * 2);
                    else RowIo.store(os, dtype, out.offset + (long) i * n, 1, n, sum);
                }
            });
            return out;
        }
    }

    private static int[] dimsBefore(panamax.api.tensor.Tensor packed) {
        int[] d = packed.shape().dims();
        return Arrays.copyOf(d, d.length - 1);
    }

    /** {@code codebookDequantizeRotated}: each row looked up, un-rotated and stored in {@code dtype} in one pass. */
    JavaTensor dequantizeRotated(CodebookMatrix w, JavaTensor signs, DType dtype) {
        if (!dtype.isFloating()) throw new IllegalArgumentException("codebookDequantizeRotated: expected a floating dtype, found " + dtype);
        try (Parts q = parts(w)) {
            int n = q.cols;
            if (Integer.bitCount(n) != 1) {
                throw new IllegalArgumentException("codebookDequantizeRotated: rows of " + n + " codes in " + w.packed().shape() + " are not a power of two");
            }
            int[] dims = q.packed.dims.clone();
            dims[dims.length - 1] = n;
            SignRows signRows = new SignRows(signs, Arrays.copyOf(dims, dims.length - 1), n, new Shape(dims));
            JavaTensor out = backend.allocate(dims, dtype);
            MemorySegment ps = q.packed.segment();
            MemorySegment os = out.segment();
            boolean vectorBf16 = dtype == DType.BF16 && CodebookVectors.supported();
            boolean packed4 = CodebookVectors.looksUpPacked4(q.table, q.bits, n); // codes read as bytes, no unpacked copy
            boolean windows = CodebookVectors.looksUpWindows(q.table, q.bits, n);
            // bf16 rows decoded, un-rotated and stored from registers, one pass per row
            boolean fused = dtype == DType.BF16 && Bf16RowDecoder.decodes(q.table, q.bits, n);
            backend.parallel.forRange(q.matrices() * q.rows, Math.max(1, 8192 / n), (from, to) -> {
                if (fused) {
                    decodeRows(q, from, to, signRows, ps, os, out.offset, packed4, windows);
                    return;
                }
                // rows ENCODE_ROWS at a time, phase by phase (look-up, rotation, store), as in quantize
                int[] codes = new int[n];
                float[][] row = new float[ENCODE_ROWS][n];
                float[][] sign = new float[ENCODE_ROWS][n];
                long[] currentSigns = new long[ENCODE_ROWS];
                Arrays.fill(currentSigns, -1);
                RowCursor rows = new RowCursor(q, from);
                for (int i0 = from; i0 < to; i0 += ENCODE_ROWS) {
                    int count = Math.min(ENCODE_ROWS, to - i0);
                    for (int g = 0; g < count; g++) {
                        long rowByte = rows.next();
                        currentSigns[g] = signRows.loadRun(i0 + g, currentSigns[g], sign[g]);
                        lookUp(q, ps, rowByte, rows.scale(), packed4, windows, codes, row[g]);
                    }
                    for (int g = 0; g < count; g++) HadamardVectors.transform(row[g], n, null, sign[g]);
                    for (int g = 0; g < count; g++) {
                        int i = i0 + g;
                        if (vectorBf16) CodebookVectors.storeBf16(row[g], n, os, (out.offset + (long) i * n) * 2);
                        else RowIo.store(os, dtype, out.offset + (long) i * n, 1, n, row[g]);
                    }
                }
            });
            return out;
        }
    }

    /**
     * Rows {@code [from, to)} of {@code dequantizeRotated} to bf16 by {@link Bf16RowDecoder#decode}, one call
     * per row. Rows it does not take (within 64 bytes of the plane's end, or whose scale could overflow the rotation)
     * are looked up, un-rotated and stored the general way, which repairs NaNs.
     */
    private static void decodeRows(Parts q, int from, int to, SignRows signRows, MemorySegment ps, MemorySegment os, long outOffset,
            boolean packed4, boolean windows) {
        int n = q.cols;
        float[] sign = new float[n];
        int[] signWords = new int[n / 2];
        float[] row = new float[n];
        int[] codes = new int[n];
        long current = -1;
        RowCursor rows = new RowCursor(q, from);
        // one row ahead of rows: rows of 64 go two at a time where both qualify (Bf16RowDecoder.decodeOf64Pair)
        RowCursor following = n == 64 ? new RowCursor(q, from + 1) : null;
        float[] followingSign = new float[n];
        int[] followingSignWords = new int[n / 2];
        long followingRun = -1;
        for (int i = from; i < to; i++) {
            long rowByte = rows.next();
            long followingByte = following != null && i + 1 < to ? following.next() : -1;
            long run = signRows.loadRun(i, current, sign);
            if (run != current) { // the run's signs as sign bits, once per run
                Bf16RowDecoder.signWords(sign, n, signWords);
                current = run;
            }
            long outByte = (outOffset + (long) i * n) * 2;
            if (followingByte >= 0 && Math.max(rowByte, followingByte) + 64 <= ps.byteSize() && Bf16RowDecoder.decodesFinite(q.table, n, rows.scale())
                    && Bf16RowDecoder.decodesFinite(q.table, n, following.scale())) {
                long next = signRows.loadRun(i + 1, followingRun, followingSign);
                if (next != followingRun) {
                    Bf16RowDecoder.signWords(followingSign, n, followingSignWords);
                    followingRun = next;
                }
                Bf16RowDecoder.decodeOf64Pair(q.table, ps, q.bits, rowByte, rows.scale(), signWords, outByte, followingByte, following.scale(),
                        followingSignWords, outByte + 2L * n, os);
                rows.next();
                if (i + 2 < to) following.next();
                i++;
                continue;
            }
            if (rowByte + 64 <= ps.byteSize() && Bf16RowDecoder.decodesFinite(q.table, n, rows.scale())) {
                Bf16RowDecoder.decode(q.table, ps, rowByte, q.bits, n, rows.scale(), signWords, os, outByte);
                continue;
            }
            lookUp(q, ps, rowByte, rows.scale(), packed4, windows, codes, row);
            HadamardVectors.transform(row, n, null, sign);
            CodebookVectors.storeBf16(row, n, os, outByte);
        }
    }

    /** The values of the codes at {@code rowByte} times {@code scale} into {@code row}, by the fastest look-up that takes them. */
    private static void lookUp(Parts q, MemorySegment ps, long rowByte, float scale, boolean packed4, boolean windows, int[] codes, float[] row) {
        lookUp(q.bits, q.table, ps, rowByte, q.cols, scale, packed4, windows, codes, row);
    }

    /** {@link #lookUp} of one row of {@code n} {@code bits}-wide codes over {@code table}. */
    private static void lookUp(int bits, CodebookVectors.Table table, MemorySegment ps, long rowByte, int n, float scale, boolean packed4,
                               boolean windows, int[] codes, float[] row) {
        if (packed4) {
            CodebookVectors.lookupPacked4(table, ps, rowByte, n, scale, row);
        } else if (windows) {
            CodebookVectors.lookupWindows(table, ps, rowByte, bits, n, scale, row);
        } else {
            CodebookVectors.unpack(ps, rowByte, bits, n, codes, 0);
            CodebookVectors.lookupRow(table, codes, n, scale, row);
        }
    }

    /**
     * Walks the rows of a codebook matrix's planes from row {@code from} on: row i is row r of matrix m, counted along
     * (a division per row, and the matrix offset's per lead axis, cost a sixth of a head dim 64 decode).
     */
    private static final class RowCursor {
        private final Parts q;
        private int m;
        private int r;
        private int currentMatrix = -1;
        private float[] scales;
        private long matrixByte;

        RowCursor(Parts q, int from) {
            this.q = q;
            this.m = from / q.rows;
            this.r = from % q.rows - 1;
        }

        /** Moves to the next row and returns its byte offset in the packed plane. */
        long next() {
            if (++r == q.rows) {
                r = 0;
                m++;
            }
            if (m != currentMatrix) {
                scales = q.scalesOf(m);
                matrixByte = q.rowByte(m, 0);
                currentMatrix = m;
            }
            return matrixByte + r * q.rowBytes();
        }

        /** The current row's scale (its norm). */
        float scale() {
            return scales[r];
        }
    }

    /** One thread's rows for the sketched ops (the decoder leaves {@code approx}, {@code factors} and {@code words} unused). */
    private static final class SketchScratch {
        final float[] row;
        final float[] approx;
        final float[] residual;
        final float[] sign;
        final float[] factors;
        final int[] codes;
        final int[] words;
        final SketchBlocks.Cursor block;

        SketchScratch(int n, int words, SketchBlocks blocks) {
            row = new float[n];
            approx = new float[n];
            residual = new float[n];
            sign = new float[n];
            factors = new float[n];
            codes = new int[n];
            this.words = new int[Math.max(1, words)];
            block = blocks.cursor();
        }
    }

    /** The sign rows of a sketch's Hadamard blocks ({@link SignRows} each), read per thread through a {@link Cursor}. */
    private static final class SketchBlocks {
        private final SignRows[] rows;
        private final int n;

        SketchBlocks(List<JavaTensor> signs, int[] lead, int n, Shape target) {
            this.rows = new SignRows[signs.size()];
            for (int k = 0; k < rows.length; k++) rows[k] = new SignRows(signs.get(k), lead, n, target);
            this.n = n;
        }

        int count() {
            return rows.length;
        }

        Cursor cursor() {
            return new Cursor();
        }

        /** One thread's current signs of each block, reloaded when a row leaves its block's run. */
        final class Cursor {
            private final float[][] signs = new float[rows.length][n];
            private final long[] runs = new long[rows.length];

            Cursor() {
                Arrays.fill(runs, -1);
            }

            float[] signs(int k, int row) {
                runs[k] = rows[k].loadRun(row, runs[k], signs[k]);
                return signs[k];
            }
        }
    }

    /** The ±1 sign row of each row of a tensor with leading axes {@code lead}, read from broadcast {@code signs [..., n]}. */
    private static final class SignRows {
        private final JavaTensor signs;
        private final int[] lead;
        private final long[] strides; // signs' strides aligned to lead, 0 where broadcast
        private final int n;
        private final int run;        // rows in a row of the trailing broadcast axes: one sign row each

        SignRows(JavaTensor signs, int[] lead, int n, Shape target) {
            if (signs.rank() == 0 || signs.rank() > lead.length + 1 || signs.dims[signs.rank() - 1] != n) {
                throw new IllegalArgumentException("signs " + signs.shape + " do not broadcast to " + target + " along its last axis");
            }
            this.signs = signs;
            this.lead = lead;
            this.n = n;
            this.strides = new long[lead.length];
            for (int i = 0; i < lead.length; i++) {
                int si = i - (lead.length + 1 - signs.rank());
                if (si < 0 || signs.dims[si] == 1) continue;
                if (signs.dims[si] != lead[i]) throw new IllegalArgumentException("signs " + signs.shape + " do not broadcast to " + target);
                strides[i] = signs.strides[si];
            }
            int trailing = 1;
            for (int i = lead.length - 1; i >= 0 && strides[i] == 0; i--) trailing *= lead[i];
            this.run = Math.max(1, trailing);
        }

        /**
         * Loads the signs of row {@code r} into {@code dst} unless {@code dst} holds those of r's run
         * ({@code currentRun}, or −1); returns r's run. Callers keep one {@code dst} (and its run) per
         * row slot: rows of one run share their signs.
         */
        long loadRun(int r, long currentRun, float[] dst) {
            if (r >= currentRun * run && r < (currentRun + 1) * run) return currentRun; // still in it: no division per row
            long runIndex = r / run;
            RowIo.load(signs.segment(), signs.dtype, signs.offset + offset(r, lead, strides), signs.strides[signs.rank() - 1], n, dst);
            return runIndex;
        }
    }
}
