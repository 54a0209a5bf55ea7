package panamax.backend.java;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import panamax.api.error.InvalidParameterException;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.backend.java.kernel.AffineCodes;
import panamax.backend.java.kernel.AffineEncoding;
import panamax.backend.java.kernel.AffineVectors;
import panamax.backend.java.kernel.CodebookVectors;
import panamax.backend.java.kernel.Floats;
import panamax.backend.java.kernel.RowScales;

/** MLX affine {@code quantize}, {@code dequantize} and {@code quantizedMatmul} (CPU rules, bit-exact). */
final class QuantOps {
    private static final Set<Integer> BITS = Set.of(2, 3, 4, 5, 6, 8);
    private static final Set<Integer> GROUPS = Set.of(32, 64, 128);

    private final JavaBackend backend;
    private final ViewOps views;

    QuantOps(JavaBackend backend, ViewOps views) {
        this.backend = backend;
        this.views = views;
    }

    private static void checkFormat(int groupSize, int bits) {
        if (!BITS.contains(bits)) throw new InvalidParameterException("bits", bits, "2, 3, 4, 5, 6, 8");
        if (!GROUPS.contains(groupSize)) throw new InvalidParameterException("groupSize", groupSize, "32, 64, 128");
    }

    QuantizedMatrix quantize(JavaTensor w, int groupSize, int bits) {
        checkFormat(groupSize, bits);
        if (w.rank() < 2) throw new IllegalArgumentException("quantize: expected w [..., rows, cols], found " + w.shape);
        if (!w.dtype.isFloating()) throw new IllegalArgumentException("quantize: expected a floating w, found " + w.dtype);
        int cols = w.dims[w.rank() - 1];
        if (cols % groupSize != 0) {
            throw new InvalidParameterException("groupSize", groupSize, "a divisor of the last axis " + cols + " of " + w.shape);
        }
        int rows = (int) (w.elementCount() / Math.max(cols, 1));
        int words = cols * bits / 32;
        int groups = cols / groupSize;
        int[] pd = w.dims.clone();
        pd[pd.length - 1] = words;
        int[] sd = w.dims.clone();
        sd[sd.length - 1] = groups;
        JavaTensor packed = backend.allocate(pd, DType.U32);
        JavaTensor scales = backend.allocate(sd, w.dtype);
        JavaTensor biases = backend.allocate(sd, w.dtype);
        // rows are read straight from a contiguous w (a copy is made for other views), never all at once on the heap
        JavaTensor src = w.isContiguous() ? w.view(w.dims, w.strides, w.offset) : views.copy(w);
        MemorySegment ws = src.segment();
        MemorySegment ps = packed.segment();
        MemorySegment ss = scales.segment();
        MemorySegment bs = biases.segment();
        try (src) {
            // rows are word-aligned (cols·bits is a multiple of 32), so a run of rows is one stream of codes and groups
            int chunkRows = Math.max(1, 4096 / Math.max(cols, 1));
            // the fused encoder puts one group in each lane; fewer groups than lanes (a KV cache's token: one
            // group per head) leave most lanes idle, and the per-group encoder (same bits) took half the time
            // there (demo model, --kv-bits 4: encoding 5.1 -> 2.4 % of generate's CPU samples)
            boolean fused = AffineEncoding.supports(groupSize) && (long) rows * groups >= AffineEncoding.lanes();
            boolean fromBf16 = fused && src.dtype == DType.BF16 && AffineEncoding.quantizesBf16(groupSize);
            backend.parallel.forRange(rows, Math.max(chunkRows, 65536 / Math.max(cols, 1)), (r0, r1) -> {
                // scratch for the rows this range holds, not a whole chunk: a KV cache encodes one token per
                // layer and step (two rows of 64 on the demo model), and 4096-value chunks zeroed ~50 KB per call
                int most = Math.min(chunkRows, r1 - r0);
                int padded = (most * groups + 63) / 64 * 64; // group arrays in whole vectors
                if (fused) { // one pass over L1-resident rows: min/max, scales in lanes, codes packed in registers
                    float[] values = new float[most * cols];
                    float[] lo = new float[Math.max(padded, fromBf16 ? AffineEncoding.bf16Scratch(most * cols, groupSize) : 0)];
                    float[] hi = new float[lo.length];
                    float[] s = new float[padded];
                    float[] b = new float[padded];
                    for (int r = r0; r < r1; r += chunkRows) {
                        int n = Math.min(chunkRows, r1 - r);
                        long from = 2 * (src.offset + (long) r * cols);
                        long to = (long) r * words * 4;
                        // bf16 rows straight from the segment; a NaN or infinity (or a ragged 64-value tail) takes the exact path
                        if (!fromBf16 || n * cols % Math.max(64, groupSize) != 0
                                || !AffineEncoding.quantizeBf16(ws, from, n * cols, groupSize, bits, values, lo, hi, s, b, ps, to)) {
                            RowIo.load(ws, src.dtype, src.offset + (long) r * cols, 1, n * cols, values);
                            AffineEncoding.quantize(values, n * cols, groupSize, bits, lo, hi, s, b, ps, to);
                        }
                        if (w.dtype == DType.BF16 && n * groups % AffineEncoding.lanes() == 0) { // vector rounding, same bits
                            CodebookVectors.storeBf16(s, n * groups, ss, 2L * r * groups);
                            CodebookVectors.storeBf16(b, n * groups, bs, 2L * r * groups);
                        } else {
                            RowIo.store(ss, w.dtype, (long) r * groups, 1, n * groups, s);
                            RowIo.store(bs, w.dtype, (long) r * groups, 1, n * groups, b);
                        }
                    }
                    return;
                }
                int[] codes = new int[most * cols];
                float[] values = new float[most * cols];
                float[] s = new float[most * groups];
                float[] b = new float[most * groups];
                for (int r = r0; r < r1; r += chunkRows) {
                    int n = Math.min(chunkRows, r1 - r);
                    RowIo.load(ws, src.dtype, src.offset + (long) r * cols, 1, n * cols, values);
                    AffineVectors.quantizeGroups(values, n * cols, groupSize, bits, codes, s, b);
                    AffineVectors.pack(codes, n * cols, bits, ps, (long) r * words);
                    RowIo.store(ss, w.dtype, (long) r * groups, 1, n * groups, s);
                    RowIo.store(bs, w.dtype, (long) r * groups, 1, n * groups, b);
                }
            });
        }
        return new QuantizedMatrix(packed, scales, biases, groupSize, bits);
    }

    /** Validated geometry of a quantized matrix's three tensors (contiguous copies where needed). */
    record Parts(JavaTensor packed, JavaTensor scales, JavaTensor biases, int rows, int cols, int groupSize, int bits) {
        long rowBytes() {
            return packed.strides[packed.rank() - 2] * 4;
        }

        /** The group parameters of matrix {@code [b, h]} of rank-4 scales and biases. */
        RowScales rowScales(int b, int h) {
            return QuantOps.rowScales(this, scales.offset + b * scales.strides[0] + h * scales.strides[1],
                    biases.offset + b * biases.strides[0] + h * biases.strides[1]);
        }
    }

    private Parts parts(QuantizedMatrix w) {
        JavaTensor p = backend.check(w.packed(), "w.packed");
        JavaTensor s = backend.check(w.scales(), "w.scales");
        JavaTensor b = backend.check(w.biases(), "w.biases");
        checkFormat(w.groupSize(), w.bits());
        if (p.rank() < 2 || s.rank() != p.rank()) {
            throw new IllegalArgumentException("quantized matrix: expected packed [..., rows, words] and scales of equal rank, found "
                    + p.shape + " and " + s.shape);
        }
        int cols = s.dims[s.rank() - 1] * w.groupSize();
        if ((long) cols * w.bits() / 32 != p.dims[p.rank() - 1]) {
            throw new IllegalArgumentException("quantized matrix: packed " + p.shape + " does not hold " + cols + " " + w.bits()
                    + "-bit codes per row (scales " + s.shape + ", group " + w.groupSize() + ")");
        }
        if (!s.dtype.isFloating() || b.dtype != s.dtype) {
            throw new IllegalArgumentException("quantized matrix: expected floating scales and biases of one dtype, found "
                    + s.dtype + " and " + b.dtype);
        }
        return new Parts(p, s, b, p.dims[p.rank() - 2], cols, w.groupSize(), w.bits());
    }

    /** Scales and biases of matrix {@code batchIndex} (batch offsets given) as f32 rows. */
    private static RowScales rowScales(Parts q, long sOff, long bOff) {
        JavaTensor s = q.scales;
        JavaTensor b = q.biases;
        long rs = s.strides[s.rank() - 2];
        long cs = s.strides[s.rank() - 1];
        long rb = b.strides[b.rank() - 2];
        long cb = b.strides[b.rank() - 1];
        int groups = q.cols / q.groupSize;
        MemorySegment ss = s.segment();
        MemorySegment bs = b.segment();
        boolean packedRows = cs == 1 && cb == 1 && rs == groups && rb == groups;
        boolean bf16 = s.dtype == DType.BF16 && b.dtype == DType.BF16;
        return new RowScales() {
            @Override
            public boolean bf16() {
                return bf16;
            }

            @Override
            public void load(int row, float[] scales, float[] biases) {
                RowIo.load(ss, s.dtype, sOff + row * rs, cs, groups, scales);
                RowIo.load(bs, b.dtype, bOff + row * rb, cb, groups, biases);
            }

            @Override
            public void loadRows(int row, int count, int perRow, float[] scales, float[] biases, int at) {
                if (!packedRows || perRow != groups) {
                    RowScales.super.loadRows(row, count, perRow, scales, biases, at);
                    return;
                }
                RowIo.load(ss, s.dtype, sOff + row * rs, 1, count * groups, scales, at);
                RowIo.load(bs, b.dtype, bOff + row * rb, 1, count * groups, biases, at);
            }
        };
    }

    JavaTensor dequantize(QuantizedMatrix w) {
        Parts q = contiguousWords(parts(w));
        try {
            int[] dims = q.packed.dims.clone();
            dims[dims.length - 1] = q.cols;
            DType t = q.scales.dtype;
            JavaTensor out = backend.allocate(dims, t);
            if (AffineVectors.supported() && q.packed.isContiguous() && sameGroupShape(q) && (t == DType.F32 || t == DType.BF16)) {
                // strided or broadcast scales (e.g. codebook codes decoded with scale 1, bias 0) are copied: 1/group of the codes
                boolean copy = !q.scales.isContiguous() || !q.biases.isContiguous();
                try (JavaTensor s = copy ? views.copy(q.scales) : null; JavaTensor b = copy ? views.copy(q.biases) : null) {
                    dequantizeFlat(copy ? new Parts(q.packed, s, b, q.rows, q.cols, q.groupSize, q.bits) : q, out);
                }
                return out;
            }
            int matrices = (int) (q.packed.elementCount() / Math.max(1, (long) q.rows * q.packed.dims[dims.length - 1]));
            int[] batch = Arrays.copyOf(dims, dims.length - 2);
            long[] pb = MatmulOps.batchStrides(q.packed, batch);
            long[] sb = MatmulOps.batchStrides(q.scales, batch);
            long[] bb = MatmulOps.batchStrides(q.biases, batch);
            MemorySegment ps = q.packed.segment();
            MemorySegment os = out.segment();
            int rows = q.rows;
            int cols = q.cols;
            int total = matrices * rows;
            int shift = Integer.numberOfTrailingZeros(q.groupSize);
            backend.parallel.forRange(total, Math.max(1, 65536 / Math.max(cols, 1)), (from, to) -> {
                int[] codes = new int[cols];
                float[] values = new float[cols];
                float[] s = new float[cols / q.groupSize];
                float[] b = new float[cols / q.groupSize];
                RowScales params = null;
                int current = -1;
                for (int i = from; i < to; i++) {
                    int mtx = i / Math.max(rows, 1);
                    int r = i % Math.max(rows, 1);
                    if (mtx != current) {
                        params = rowScales(q, q.scales.offset + MatmulOps.batchOffset(mtx, batch, sb),
                                q.biases.offset + MatmulOps.batchOffset(mtx, batch, bb));
                        current = mtx;
                    }
                    params.load(r, s, b);
                    long rowBytes = (q.packed.offset + MatmulOps.batchOffset(mtx, batch, pb)) * 4 + r * q.rowBytes();
                    AffineCodes.unpack(ps, rowBytes, q.bits, 0, cols, codes);
                    // MLX: T(q)·scale, then + bias, each rounded to T (no fused multiply-add)
                    switch (t) {
                        case F32 -> {
                            for (int c = 0; c < cols; c++) values[c] = codes[c] * s[c >>> shift] + b[c >>> shift];
                        }
                        case BF16 -> {
                            for (int c = 0; c < cols; c++) {
                                float prod = Floats.roundToBf16(codes[c] * s[c >>> shift]);
                                values[c] = Floats.roundToBf16(prod + b[c >>> shift]);
                            }
                        }
                        default -> {
                            for (int c = 0; c < cols; c++) {
                                float prod = Floats.roundToF16(codes[c] * s[c >>> shift]);
                                values[c] = Floats.roundToF16(prod + b[c >>> shift]);
                            }
                        }
                    }
                    RowIo.store(os, t, (long) i * cols, 1, cols, values);
                }
            });
            return out;
        } finally {
            releaseCopies(q, w);
        }
    }

    /** True when scales and biases have the codes' shape (one scale per group of each row, no broadcast batch axes). */
    private static boolean sameGroupShape(Parts q) {
        if (q.scales.rank() != q.packed.rank() || q.biases.rank() != q.packed.rank()) return false;
        for (int i = 0; i < q.packed.rank() - 1; i++) {
            if (q.scales.dims[i] != q.packed.dims[i] || q.biases.dims[i] != q.packed.dims[i]) return false;
        }
        return q.biases.dims[q.biases.rank() - 1] == q.scales.dims[q.scales.rank() - 1];
    }

    /** Block-parallel vector dequantize of row-major codes, scales and biases of one shape into a row-major f32 or bf16 {@code out}. */
    private void dequantizeFlat(Parts q, JavaTensor out) {
        long blocks = q.packed.elementCount() / q.bits; // 32 codes per b words
        if (blocks > Integer.MAX_VALUE) throw new IllegalArgumentException("dequantize: too many codes in " + q.packed.shape);
        MemorySegment ps = q.packed.segment();
        MemorySegment ss = q.scales.segment();
        MemorySegment bs = q.biases.segment();
        MemorySegment os = out.segment();
        DType st = q.scales.dtype;
        boolean bf16 = out.dtype == DType.BF16;
        int gs = q.groupSize;
        int shift = Integer.numberOfTrailingZeros(gs);
        long p0 = q.packed.offset * 4;
        long safe = AffineVectors.safeBlocks(ps, p0, q.bits, blocks);
        backend.parallel.forEvenSplit((int) blocks, 1024, (from, to) -> {
            final int step = 64; // blocks per sub-chunk: 2048 codes, a few dozen groups of scales
            float[] s = new float[step * 32 / gs + 2];
            float[] b = new float[s.length];
            float[] values = new float[step * 32];
            int[] codes = new int[step * 32];
            for (int k0 = from; k0 < to; k0 += step) {
                int n = Math.min(step, to - k0);
                long code0 = 32L * k0;
                long g0 = code0 >>> shift;
                int groups = (int) (((code0 + 32L * n - 1) >>> shift) - g0 + 1);
                RowIo.load(ss, st, q.scales.offset + g0, 1, groups, s);
                RowIo.load(bs, st, q.biases.offset + g0, 1, groups, b);
                int first = (int) (code0 - (g0 << shift));
                int fast = (int) Math.max(0, Math.min(n, safe - k0));
                long byteOff = p0 + 4L * q.bits * k0;
                if (bf16) AffineVectors.dequantizeBlocksBf16(ps, byteOff, q.bits, fast, s, b, first, shift, os, 2 * code0);
                else AffineVectors.dequantizeBlocks(ps, byteOff, q.bits, fast, s, b, first, shift, values, 0);
                if (fast < n) { // the stream's last blocks, where a vector load would run past the buffer
                    AffineCodes.unpack(ps, byteOff + 4L * q.bits * fast, q.bits, 0, 32 * (n - fast), codes);
                    for (int i = 32 * fast; i < 32 * n; i++) {
                        int g = (first + i) >>> shift;
                        float prod = codes[i - 32 * fast] * s[g];
                        values[i] = bf16 ? Floats.roundToBf16(Floats.roundToBf16(prod) + b[g]) : prod + b[g];
                    }
                }
                if (!bf16) RowIo.store(os, DType.F32, code0, 1, 32 * n, values);
                else if (fast < n) RowIo.store(os, DType.BF16, code0 + 32 * fast, 1, 32 * (n - fast), java.util.Arrays.copyOfRange(values, 32 * fast, 32 * n));
            }
        });
    }

    /** Packed words must be unit-stride along a row; copies the tensor otherwise. */
    private Parts contiguousWords(Parts q) {
        JavaTensor p = q.packed;
        if (p.strides[p.rank() - 1] == 1 || p.dims[p.rank() - 1] == 1) return q;
        return new Parts(views.copy(p), q.scales, q.biases, q.rows, q.cols, q.groupSize, q.bits);
    }

    private static void releaseCopies(Parts q, QuantizedMatrix w) {
        if (q.packed != w.packed()) q.packed.close();
    }

    /**
     * Independent products {@code quantizedMatmul(x[i], w[i], transpose)}: each is started as alone
     * ({@link QuantMatmul#start}), and the products over one matrix's tiles or the vector kernel then run in one pass.
     */
    List<JavaTensor> quantizedMatmuls(List<JavaTensor> xs, List<QuantizedMatrix> ws, boolean transpose) {
        if (xs.size() != ws.size()) throw new IllegalArgumentException("quantizedMatmuls: " + xs.size() + " inputs and " + ws.size() + " matrices");
        List<JavaTensor> outs = new ArrayList<>(xs.size());
        List<Parts> used = new ArrayList<>(xs.size());
        List<ProductWork> works = new ArrayList<>();
        PlacedInputs placed = new PlacedInputs(); // products of one x (q, k and v) place it once
        try {
            for (int i = 0; i < xs.size(); i++) {
                QuantizedMatrix w = ws.get(i);
                Parts q = contiguousWords(parts(w));
                used.add(q);
                outs.add(QuantMatmul.start(backend, xs.get(i), q.packed, q.scales, q.biases, q.rows, q.cols, q.groupSize, q.bits,
                        q.rowBytes(), transpose, (sOff, bOff) -> rowScales(q, sOff, bOff), q.packed == w.packed(), works, placed));
            }
            ProductWork.runAll(backend.parallel, works);
            return outs;
        } catch (RuntimeException | Error e) {
            for (JavaTensor t : outs) t.close();
            throw e;
        } finally {
            for (int i = 0; i < used.size(); i++) releaseCopies(used.get(i), ws.get(i));
        }
    }

    JavaTensor quantizedMatmul(JavaTensor x, QuantizedMatrix w, boolean transpose) {
        return quantizedMatmuls(List.of(x), List.of(w), transpose).getFirst();
    }

    /**
     * Fused attention over quantized keys and values ({@link QuantizedAttention}), or null when its
     * kernels do not serve these formats (the kernel then declines and the caller composes it). Shapes are
     * already checked.
     */
    JavaTensor quantizedAttention(JavaTensor q, QuantizedMatrix keys, QuantizedMatrix values, double scale, AttentionMask mask) {
        Parts k = parts(keys);
        Parts v = parts(values);
        if (!QuantizedAttention.supports(k, v) || !q.dtype.isFloating()) return null;
        return QuantizedAttention.run(backend, q, k, v, scale, mask);
    }

    /** Makes the {@link RowScales} of one matrix from its scales' and biases' element offsets. */
    @FunctionalInterface
    interface ScalesAt {
        RowScales at(long scalesOffset, long biasesOffset);
    }
}
