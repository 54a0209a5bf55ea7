package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;

/**
 * Codebook matrices and the randomized Hadamard rotation ({@code codebookDequantize},
 * {@code codebookMatmul}, {@code codebookQuantize}, {@code hadamardRotate}) against float64
 * references: random codes of every width packed by {@link AffineReference#pack}, random codebooks,
 * row scales or none, packed rows read through strided views (as a cache layout slices them), and
 * both matmul orientations with batch axes; and {@code codebookAttention} over such matrices.
 * {@link #codebookKernels()} and {@link #codebookAttentionKernels()} are the kernels under test: the
 * backend's own (tests skip when it offers none), or a composition of them a subclass hands in (as the
 * KV codecs' tests do).
 */
public abstract class CodebookTck extends BackendTck {
    private static final List<Integer> BITS = List.of(1, 2, 3, 4, 5, 6, 8);

    /** The codebook kernels under test: the backend's {@link CodebookKernels} by default. */
    protected CodebookKernels codebookKernels() {
        return kernel(CodebookKernels.class);
    }

    /**
     * The attention kernels under test: the backend's {@link CodebookAttentionKernels} by default. Cases
     * they decline are not checked here; a test where they decline every case is reported as skipped.
     */
    protected CodebookAttentionKernels codebookAttentionKernels() {
        return kernel(CodebookAttentionKernels.class);
    }

    private static int draw(RandomnessSource in, int lo, int hi) {
        return integers().between(lo, hi).generate(in);
    }

    /** Random codes {@code [lead..., rows, cols]}, a codebook, and row scales (or null). */
    private record Codes(int[] dims, int bits, int[] codes, double[] codebook, double[] rowScales, int extraRows) {
        int rows() {
            return Ref.size(dims) / cols();
        }

        int cols() {
            return dims[dims.length - 1];
        }

        Ref dense() {
            double[] v = new double[codes.length];
            for (int i = 0; i < v.length; i++) v[i] = codebook[codes[i]] * (rowScales == null ? 1 : rowScales[i / cols()]);
            return new Ref(dims, v);
        }

        @Override
        public String toString() {
            return "Codes[dims=" + Arrays.toString(dims) + ", bits=" + bits + ", scales=" + (rowScales != null)
                    + ", strided=" + (extraRows > 0) + "]";
        }
    }

    private static Gen<Codes> codes(int[] leadAndRows, int maxColBlocks) {
        return in -> {
            int bits = Gens.oneOf(BITS).generate(in);
            return codes(leadAndRows, bits, (bits == 1 ? 64 : 32) * draw(in, 1, maxColBlocks)).generate(in);
        };
    }

    private static Gen<Codes> codes(int[] leadAndRows, int bits, int cols) {
        return in -> {
            int[] dims = References.concat(leadAndRows, cols);
            int[] codes = new int[Ref.size(dims)];
            for (int i = 0; i < codes.length; i++) codes[i] = draw(in, 0, (1 << bits) - 1);
            double[] book = new double[1 << bits];
            for (int i = 0; i < book.length; i++) book[i] = (float) (draw(in, -100_000, 100_000) * 1e-5);
            double[] scales = null;
            if (draw(in, 0, 2) > 0) {
                scales = new double[codes.length / dims[dims.length - 1]];
                for (int i = 0; i < scales.length; i++) scales[i] = (float) (draw(in, 0, 100_000) * 3e-5);
            }
            return new Codes(dims, bits, codes, book, scales, draw(in, 0, 1) * draw(in, 1, 3));
        };
    }

    /** The tensors of {@code c} (closed with the returned scope) and the matrix viewing them. */
    private CodebookMatrix matrix(Codes c, List<Tensor> owned) {
        int[] lead = Arrays.copyOf(c.dims, c.dims.length - 2);
        int rows = c.dims[c.dims.length - 2];
        int cols = c.cols();
        int words = cols * c.bits / 32;
        // stored with extra rows after the real ones, then sliced: the rows are a strided view
        int stored = rows + c.extraRows;
        int[] storedCodes = new int[Ref.size(lead) * stored * cols];
        for (int m = 0; m < Ref.size(lead); m++) {
            System.arraycopy(c.codes, m * rows * cols, storedCodes, m * stored * cols, rows * cols);
        }
        int[] packed = AffineReference.pack(storedCodes, Ref.size(lead) * stored, cols, c.bits);
        Tensor all = backend().fromInts(packed, new Shape(References.concat(lead, stored, words)), DType.U32);
        owned.add(all);
        Tensor p = ops().slice(all, -2, 0, rows);
        owned.add(p);
        float[] book = new float[c.codebook.length];
        for (int i = 0; i < book.length; i++) book[i] = (float) c.codebook[i];
        Tensor cb = backend().fromFloats(book, Shape.of(book.length), DType.F32);
        owned.add(cb);
        Tensor s = null;
        if (c.rowScales != null) {
            float[] sv = new float[c.rowScales.length];
            for (int i = 0; i < sv.length; i++) sv[i] = (float) c.rowScales[i];
            s = backend().fromFloats(sv, new Shape(References.concat(lead, rows, 1)), DType.F32);
            owned.add(s);
        }
        return new CodebookMatrix(p, cb, s, c.bits);
    }

    private static void closeAll(List<Tensor> owned) {
        for (int i = owned.size() - 1; i >= 0; i--) owned.get(i).close();
    }

    @Test
    public void codebookDequantizeLooksUpEachCodeTimesItsRowScale() {
        CodebookKernels kernels = codebookKernels();
        Gen<Codes> cases = in -> codes(draw(in, 0, 1) == 0 ? new int[] {draw(in, 1, 5)} : new int[] {2, draw(in, 1, 3), draw(in, 1, 3)}, 3)
                .generate(in);
        qt(60).forAll(cases).checkAssert(c -> {
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix w = matrix(c, owned);
                try (Tensor r = kernels.codebookDequantize(w)) {
                    assertClose("codebookDequantize " + c, r, DType.F32, c.dense(), null);
                }
            } finally {
                closeAll(owned);
            }
        });
    }

    private record MatmulCase(Ref x, Codes w, boolean transpose, DType xType) {
    }

    /**
     * {@code codebookAttention} against a float64 attention over the dense codebook keys and values:
     * head dims 32 (bits 2–4), 64 and 128, key and value bits 1–4 (4-bit keys and values are what width-specialised kernels serve; the rest take the any-width ones), GQA
     * ratios 1–6 (row blocks and their remainders), no mask, causal and windowed masks (the explicit
     * masks share their code with {@code scaledDotProductAttention}, checked in AttentionTck).
     */
    private record AttentionCase(Ref q, Codes keys, Codes values, double scale, int kind, int window) {
        AttentionMask mask() {
            return kind == 0 ? AttentionMask.NONE : kind == 1 ? AttentionMask.CAUSAL : new AttentionMask.Causal(window);
        }

        /** Which keys each query sees under {@link #mask()}: all (kind 0), causal (1), or causal within the window (2). */
        boolean[][][][] allowed(int b, int hq, int tq, int tk) {
            boolean[][][][] allowed = new boolean[b][hq][tq][tk];
            for (boolean[][][] perBatch : allowed) {
                for (boolean[][] perHead : perBatch) {
                    for (int i = 0; i < tq; i++) {
                        for (int j = 0; j < tk; j++) {
                            int last = tk - tq + i;
                            perHead[i][j] = kind == 0 || j <= last && (kind == 1 || j > last - window);
                        }
                    }
                }
            }
            return allowed;
        }

        @Override
        public String toString() {
            return "q" + q.shape() + " keys " + keys + " values " + values + " mask " + mask();
        }
    }

    @Test
    public void codebookAttentionMatchesFloat64OverTheDenseCodes() {
        CodebookAttentionKernels kernels = codebookAttentionKernels();
        int[] served = {0};
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<AttentionCase> cases = in -> {
            int b = draw(in, 1, 2);
            int hkv = draw(in, 1, 2);
            int hq = hkv * draw(in, 1, 6);
            int tq = draw(in, 1, 2);
            // a fifth of the caches are long enough for kernels that pay a per-call set-up (the Java backend's nibble tables)
            int tk = draw(in, 0, 9) == 0 ? draw(in, 0, 2) : draw(in, 0, 4) == 0 ? draw(in, 128, 300) : draw(in, 1, 50);
            int d = Gens.oneOf(List.of(32, 64, 128)).generate(in); // 32: half a CodeRows piece
            int minBits = d % 64 == 0 ? 1 : 2; // 1-bit rows hold a multiple of 64 codes (CodebookMatrix)
            Codes k = codes(new int[] {b, hkv, tk}, draw(in, minBits, 4), d).generate(in);
            Codes v = codes(new int[] {b, hkv, tk}, draw(in, minBits, 4), d).generate(in);
            double scale = draw(in, 0, 1) == 0 ? 1 / Math.sqrt(d) : draw(in, 10, 200) * 0.01;
            Ref q = Gens.values(new int[] {b, hq, tq, d}, Gens.element(Gens.Spread.UNIT), DType.F32).generate(in);
            return new AttentionCase(q, k, v, scale, draw(in, 0, 2), draw(in, 1, 4));
        };
        qt(60).forAll(cases, Gens.oneOf(types)).checkAssert((c, qType) -> {
            Ref q = c.q.map(x -> Numerics.round(x, qType));
            int b = q.dim(0), hq = q.dim(1), tq = q.dim(2), tk = c.keys.dims[2];
            boolean[][][][] allowed = c.allowed(b, hq, tq, tk);
            Expected e = FusedReferences.attention(q, c.keys.dense(), c.values.dense(), c.scale, allowed, null);
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix kc = matrix(c.keys, owned);
                CodebookMatrix vc = matrix(c.values, owned);
                try (Tensor tqIn = input(q, qType)) {
                    Optional<Tensor> fused = kernels.codebookAttention(tqIn, kc, vc, c.scale, c.mask());
                    if (fused.isEmpty()) return; // matrices the kernel does not serve: its caller composes them
                    try (Tensor r = fused.get()) {
                        assertClose("codebookAttention q " + qType + " " + c, r, qType, e);
                    }
                    served[0]++;
                }
            } finally {
                closeAll(owned);
            }
        });
        Assumptions.assumeTrue(served[0] > 0, "codebookAttention declined every case: the backend composes it here (e.g. vectors too narrow for its kernel)");
    }

    /**
     * The sketched form: scores {@code q·Kᵀ + qs·Sᵀ} (TurboQuant's QJL term), checked as attention over
     * the queries and keys each joined with their sketch along the last axis.
     */
    @Test
    public void sketchedCodebookAttentionMatchesFloat64OverTheJoinedCodes() {
        CodebookAttentionKernels kernels = codebookAttentionKernels();
        int[] served = {0};
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<Object[]> cases = in -> {
            int b = draw(in, 1, 2);
            int hkv = draw(in, 1, 2);
            int hq = hkv * draw(in, 1, 6);
            int tq = draw(in, 1, 2);
            int tk = draw(in, 0, 4) == 0 ? draw(in, 128, 300) : draw(in, 1, 50);
            int d = Gens.oneOf(List.of(64, 128)).generate(in);
            int ds = Gens.oneOf(List.of(64, 128)).generate(in);
            Codes k = codes(new int[] {b, hkv, tk}, draw(in, 1, 4), d).generate(in);
            Codes sketch = codes(new int[] {b, hkv, tk}, draw(in, 1, 4), ds).generate(in);
            Codes v = codes(new int[] {b, hkv, tk}, draw(in, 1, 4), d).generate(in);
            double scale = draw(in, 0, 1) == 0 ? 1 / Math.sqrt(d) : draw(in, 10, 200) * 0.01;
            Ref q = Gens.values(new int[] {b, hq, tq, d}, Gens.element(Gens.Spread.UNIT), DType.F32).generate(in);
            Ref qs = Gens.values(new int[] {b, hq, tq, ds}, Gens.element(Gens.Spread.UNIT), DType.F32).generate(in);
            return new Object[] {new AttentionCase(q, k, v, scale, draw(in, 0, 2), draw(in, 1, 4)), qs, sketch};
        };
        qt(40).forAll(cases, Gens.oneOf(types)).checkAssert((input, qType) -> {
            AttentionCase c = (AttentionCase) input[0];
            Ref qs = ((Ref) input[1]).map(x -> Numerics.round(x, qType));
            Codes sketch = (Codes) input[2];
            Ref q = c.q.map(x -> Numerics.round(x, qType));
            int b = q.dim(0), hq = q.dim(1), tq = q.dim(2), tk = c.keys.dims[2];
            boolean[][][][] allowed = c.allowed(b, hq, tq, tk);
            Expected e = FusedReferences.attention(joinLast(q, qs), joinLast(c.keys.dense(), sketch.dense()), c.values.dense(), c.scale,
                    allowed, null);
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix kc = matrix(c.keys, owned);
                CodebookMatrix sc = matrix(sketch, owned);
                CodebookMatrix vc = matrix(c.values, owned);
                try (Tensor tqIn = input(q, qType); Tensor tqs = input(qs, qType)) {
                    Optional<Tensor> fused = kernels.codebookAttention(tqIn, kc, tqs, sc, vc, c.scale, c.mask());
                    if (fused.isEmpty()) return; // matrices the kernel does not serve: its caller composes them
                    try (Tensor r = fused.get()) {
                        assertClose("sketched codebookAttention q " + qType + " " + c + " sketch " + sketch, r, qType, e);
                    }
                    served[0]++;
                }
            } finally {
                closeAll(owned);
            }
        });
        Assumptions.assumeTrue(served[0] > 0, "sketched codebookAttention declined every case: the backend composes it here (e.g. vectors too narrow for its kernel)");
    }

    /** a and b (equal but for the last axis) joined along their last axis. */
    private static Ref joinLast(Ref a, Ref b) {
        int na = a.dims()[a.dims().length - 1];
        int nb = b.dims()[b.dims().length - 1];
        int rows = a.values().length / na;
        double[] v = new double[rows * (na + nb)];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(a.values(), r * na, v, r * (na + nb), na);
            System.arraycopy(b.values(), r * nb, v, r * (na + nb) + na, nb);
        }
        int[] dims = a.dims().clone();
        dims[dims.length - 1] = na + nb;
        return new Ref(dims, v);
    }

    /**
     * q·Kᵀ at attention's shapes: head dims 128 and 256 of 2 and 4-bit codes (the rows a backend may
     * transpose into key-major columns: eight or sixteen words), 1–6 query rows, 1–40 keys (partial
     * blocks of sixteen), batched and strided rows.
     */
    @Test
    public void codebookScoresOverAttentionHeadsMatchFloat64() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<MatmulCase> cases = in -> {
            int bits = Gens.oneOf(List.of(1, 2, 4)).generate(in);
            int cols = Gens.oneOf(List.of(128, 256)).generate(in);
            int keys = draw(in, 0, 3) == 0 ? draw(in, 128, 200) : draw(in, 1, 40);
            boolean batched = draw(in, 0, 1) == 0;
            Codes w = codes(batched ? new int[] {1, 2, keys} : new int[] {keys}, bits, cols).generate(in);
            int m = draw(in, 1, 6);
            int[] xDims = batched ? new int[] {1, 2, m, cols} : new int[] {m, cols};
            DType xType = Gens.oneOf(types).generate(in);
            return new MatmulCase(Gens.values(xDims, Gens.element(Gens.Spread.UNIT), xType).generate(in), w, true, xType);
        };
        qt(60).forAll(cases).checkAssert(c -> {
            Ref dense = c.w.dense();
            Expected e = References.matmul(c.x, dense.transpose(References.swapLast(dense.rank())));
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix w = matrix(c.w, owned);
                try (Tensor x = input(c.x, c.xType); Tensor r = kernels.codebookMatmul(x, w, true)) {
                    assertClose("codebookMatmul scores x " + c.xType + c.x.shape() + " w " + c.w, r, DType.F32, e);
                }
            } finally {
                closeAll(owned);
            }
        });
    }

    @Test
    public void codebookMatmulMatchesTheDenseProductInFloat64() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<MatmulCase> cases = in -> {
            boolean transpose = draw(in, 0, 1) == 0;
            boolean batched = draw(in, 0, 1) == 0;
            int m = draw(in, 1, 6);
            int free = Gens.positiveDim(transpose ? 40 : 6).generate(in);
            Codes w = codes(batched ? new int[] {2, draw(in, 1, 2), free} : new int[] {free}, 3).generate(in);
            int k = transpose ? w.cols() : free;
            int[] xDims = batched ? new int[] {2, w.dims[1], m, k} : Gens.oneOf(List.of(new int[] {m, k}, new int[] {2, m, k})).generate(in);
            DType xType = Gens.oneOf(types).generate(in);
            return new MatmulCase(Gens.values(xDims, Gens.element(Gens.Spread.UNIT), xType).generate(in), w, transpose, xType);
        };
        qt(120).forAll(cases).checkAssert(c -> {
            Ref dense = c.w.dense();
            Expected e = References.matmul(c.x, c.transpose ? dense.transpose(References.swapLast(dense.rank())) : dense);
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix w = matrix(c.w, owned);
                try (Tensor x = input(c.x, c.xType); Tensor r = kernels.codebookMatmul(x, w, c.transpose)) {
                    assertClose("codebookMatmul transpose=" + c.transpose + " x " + c.xType + c.x.shape() + " w " + c.w, r, DType.F32, e);
                }
            } finally {
                closeAll(owned);
            }
        });
    }

    @Test
    public void codebookQuantizeCountsTheBoundariesBelowEachDirectionCoordinate() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(60).forAll(Gens.oneOf(BITS), integers().between(0, 7), Gens.oneOf(types), integers().between(0, 1_000_000))
                .checkAssert((bits, size, type, seed) -> {
                    int rows = 1 + size % 4;
                    int blocks = 1 + size / 4;
                    int cols = (bits == 1 ? 64 : 32) * blocks;
                    int[] dims = {rows, cols};
                    Ref x = Gens.uniform(dims, seed, 3.0, type);
                    if (seed % 5 == 0) Arrays.fill(x.values(), 0, cols, 0.0); // a zero row codes 0/0 as 0
                    double[] b = new double[(1 << bits) - 1];
                    java.util.Random rnd = new java.util.Random(seed);
                    for (int i = 0; i < b.length; i++) b[i] = (float) (rnd.nextGaussian() / Math.sqrt(cols));
                    Arrays.sort(b);
                    double[] norms = new double[rows];
                    int[] want = new int[rows * cols];
                    boolean[] nearBoundary = new boolean[rows * cols];
                    for (int r = 0; r < rows; r++) {
                        double ss = 0;
                        for (int j = 0; j < cols; j++) ss += x.values()[r * cols + j] * x.values()[r * cols + j];
                        norms[r] = Math.sqrt(ss);
                        for (int j = 0; j < cols; j++) {
                            double u = x.values()[r * cols + j] / Math.max(norms[r], Float.MIN_NORMAL);
                            for (double v : b) {
                                if (u > v) want[r * cols + j]++;
                                // f32 norms and divisions may land a coordinate this close to a boundary on either side
                                if (Math.abs(u - v) <= 1e-5 * (Math.abs(v) + 1e-3)) nearBoundary[r * cols + j] = true;
                            }
                        }
                    }
                    float[] bf = new float[b.length];
                    for (int i = 0; i < b.length; i++) bf[i] = (float) b[i];
                    try (Tensor tx = input(x, type); Tensor book = ops().zeros(Shape.of(1 << bits), DType.F32);
                         Tensor bounds = backend().fromFloats(bf, Shape.of(bf.length), DType.F32)) {
                        CodebookMatrix q = kernels.codebookQuantize(tx, book, bounds, bits);
                        try (Tensor packed = q.packed(); Tensor scales = q.rowScales()) {
                            assertEquals(book, q.codebook(), "the codebook is the argument");
                            assertShape("codebookQuantize packed", packed, DType.U32, new int[] {rows, cols * bits / 32});
                            assertClose("codebookQuantize norms of " + type + " x", scales, DType.F32, new Ref(new int[] {rows, 1}, norms), null);
                            int[] got = AffineReference.unpack(backend().toInts(packed), rows, cols, bits);
                            for (int i = 0; i < got.length; i++) {
                                if (!nearBoundary[i] && got[i] != want[i]) {
                                    throw new AssertionError("codebookQuantize " + bits + " bits, " + type + " x " + Arrays.toString(dims) + " at "
                                            + Arrays.toString(Ref.unravel(i, dims)) + ": expected code " + want[i] + ", found " + got[i]);
                                }
                            }
                        }
                    }
                });
    }

    @Test
    public void hadamardRotateMatchesTheDenseTransformAndInvertsIt() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(60).forAll(integers().between(0, 8), integers().between(1, 3), Gens.oneOf(types), integers().between(0, 1_000_000))
                .checkAssert((log, heads, type, seed) -> {
                    int n = 1 << log;
                    int[] dims = {2, heads, 3, n};
                    Ref x = Gens.uniform(dims, seed, 2.0, type);
                    java.util.Random rnd = new java.util.Random(seed);
                    double[] s = new double[heads * n];
                    for (int i = 0; i < s.length; i++) s[i] = rnd.nextBoolean() ? 1 : -1;
                    Ref signs = new Ref(new int[] {heads, 1, n}, s);
                    int rows = x.size() / n;
                    double[] fwd = new double[x.size()];
                    double[] inv = new double[x.size()];
                    double[] mag = new double[x.size()];
                    double norm = 1 / Math.sqrt(n);
                    for (int r = 0; r < rows; r++) {
                        int h = (r / 3) % heads;
                        for (int i = 0; i < n; i++) {
                            double a = 0;
                            double c = 0;
                            double m = 0;
                            for (int j = 0; j < n; j++) {
                                double hij = Integer.bitCount(i & j) % 2 == 0 ? norm : -norm;
                                double v = x.values()[r * n + j];
                                a += hij * s[h * n + j] * v;
                                c += hij * v;
                                m += Math.abs(hij * v);
                            }
                            fwd[r * n + i] = a;
                            inv[r * n + i] = s[h * n + i] * c;
                            mag[r * n + i] = m;
                        }
                    }
                    try (Tensor tx = input(x, type); Tensor ts = input(signs, DType.F32);
                         Tensor f = kernels.hadamardRotate(tx, ts, false); Tensor i = kernels.hadamardRotate(tx, ts, true);
                         Tensor back = kernels.hadamardRotate(f, ts, true)) {
                        assertClose("hadamardRotate forward n=" + n + " " + type, f, DType.F32, new Ref(dims, fwd), mag);
                        assertClose("hadamardRotate inverse n=" + n + " " + type, i, DType.F32, new Ref(dims, inv), mag);
                        double[] twice = new double[mag.length];
                        for (int k = 0; k < twice.length; k++) twice[k] = 2 * mag[k] * Math.sqrt(n);
                        assertClose("hadamardRotate inverse(forward(x)) n=" + n + " " + type, back, DType.F32, x, twice);
                    }
                });
    }

    /** {@code H·v/√n} of {@code v[off..off+n)} in float64 (H the Walsh–Hadamard matrix), into a new array. */
    private static double[] hadamard(double[] v, int off, int n) {
        double[] out = new double[n];
        double norm = 1 / Math.sqrt(n);
        for (int i = 0; i < n; i++) {
            double a = 0;
            for (int j = 0; j < n; j++) a += (Integer.bitCount(i & j) % 2 == 0 ? norm : -norm) * v[off + j];
            out[i] = a;
        }
        return out;
    }

    private static Ref signs(int heads, int n, long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        double[] s = new double[heads * n];
        for (int i = 0; i < s.length; i++) s[i] = rnd.nextBoolean() ? 1 : -1;
        return new Ref(new int[] {heads, 1, n}, s);
    }

    @Test
    public void codebookQuantizeRotatedCodesTheDirectionOfEachRotatedRow() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(40).forAll(Gens.oneOf(BITS), integers().between(0, 5), Gens.oneOf(types), integers().between(0, 1_000_000))
                .checkAssert((bits, shape, type, seed) -> {
                    int n = shape % 2 == 0 ? 64 : 128;
                    int heads = 1 + shape / 2;
                    int[] dims = {2, heads, 3, n};
                    Ref x = Gens.uniform(dims, seed, 2.0, type);
                    Ref signs = signs(heads, n, seed);
                    double[] b = new double[(1 << bits) - 1];
                    java.util.Random rnd = new java.util.Random(seed);
                    for (int i = 0; i < b.length; i++) b[i] = (float) (rnd.nextGaussian() / Math.sqrt(n));
                    Arrays.sort(b);
                    int rows = x.size() / n;
                    double[] norms = new double[rows];
                    int[] want = new int[x.size()];
                    boolean[] near = new boolean[x.size()];
                    for (int r = 0; r < rows; r++) {
                        double[] signed = new double[n];
                        for (int j = 0; j < n; j++) signed[j] = x.values()[r * n + j] * signs.values()[((r / 3) % heads) * n + j];
                        double[] y = hadamard(signed, 0, n);
                        double ss = 0;
                        for (double v : y) ss += v * v;
                        norms[r] = Math.sqrt(ss);
                        for (int j = 0; j < n; j++) {
                            double u = y[j] / Math.max(norms[r], Float.MIN_NORMAL);
                            for (double v : b) {
                                if (u > v) want[r * n + j]++;
                                if (Math.abs(u - v) <= 1e-5) near[r * n + j] = true; // f32 rotation error may cross it
                            }
                        }
                    }
                    float[] bf = new float[b.length];
                    for (int i = 0; i < b.length; i++) bf[i] = (float) b[i];
                    try (Tensor tx = input(x, type); Tensor ts = input(signs, DType.F32); Tensor book = ops().zeros(Shape.of(1 << bits), DType.F32);
                         Tensor bounds = backend().fromFloats(bf, Shape.of(bf.length), DType.F32)) {
                        CodebookMatrix q = kernels.codebookQuantizeRotated(tx, ts, book, bounds, bits);
                        try (Tensor packed = q.packed(); Tensor scales = q.rowScales()) {
                            assertShape("codebookQuantizeRotated packed", packed, DType.U32, new int[] {2, heads, 3, n * bits / 32});
                            assertClose("codebookQuantizeRotated norms", scales, DType.F32, new Ref(new int[] {2, heads, 3, 1}, norms), null);
                            int[] got = AffineReference.unpack(backend().toInts(packed), rows, n, bits);
                            for (int i = 0; i < got.length; i++) {
                                if (!near[i] && got[i] != want[i]) {
                                    throw new AssertionError("codebookQuantizeRotated " + bits + " bits, " + type + " x " + Arrays.toString(dims) + " at "
                                            + Arrays.toString(Ref.unravel(i, dims)) + ": expected code " + want[i] + ", found " + got[i]);
                                }
                            }
                        }
                    }
                });
    }

    @Test
    public void codebookDequantizeRotatedUnrotatesTheDecodedRows() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<Object[]> cases = in -> {
            int heads = draw(in, 1, 3);
            int bits = Gens.oneOf(BITS).generate(in);
            Codes c = codes(new int[] {2, heads, draw(in, 1, 4)}, bits, draw(in, 0, 1) == 0 ? 64 : 128).generate(in);
            return new Object[] {c, signs(heads, c.cols(), draw(in, 0, 1_000_000)), Gens.oneOf(types).generate(in)};
        };
        qt(40).forAll(Gens.described(cases)).checkAssert(cs -> {
            Codes c = (Codes) cs[0];
            Ref signs = (Ref) cs[1];
            DType type = (DType) cs[2];
            Ref dense = c.dense();
            int n = c.cols();
            int heads = signs.dim(0);
            int perHead = c.dims[2];
            double[] want = new double[dense.size()];
            double[] mag = new double[dense.size()];
            for (int r = 0; r < dense.size() / n; r++) {
                double[] y = hadamard(dense.values(), r * n, n);
                double[] abs = new double[n];
                for (int j = 0; j < n; j++) abs[j] = Math.abs(dense.values()[r * n + j]);
                for (int i = 0; i < n; i++) {
                    want[r * n + i] = signs.values()[((r / perHead) % heads) * n + i] * y[i];
                    for (double a : abs) mag[r * n + i] += a / Math.sqrt(n);
                }
            }
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix w = matrix(c, owned);
                try (Tensor ts = input(signs, DType.F32); Tensor r = kernels.codebookDequantizeRotated(w, ts, type)) {
                    assertClose("codebookDequantizeRotated to " + type + " " + c, r, type, new Ref(c.dims, want), mag);
                }
            } finally {
                closeAll(owned);
            }
        });
    }

    /** {@code H·Dₖ·…·H·D₁·v} (forward, k in list order) or {@code D₁·H·…·Dₖ·H·v} (transposed) of one row, in float64. */
    private static double[] sketchChain(double[] v, List<Ref> blocks, int head, boolean transposed) {
        int n = v.length;
        double[] y = v.clone();
        for (int i = 0; i < blocks.size(); i++) {
            double[] d = blocks.get(transposed ? blocks.size() - 1 - i : i).values();
            if (transposed) {
                y = hadamard(y, 0, n);
                for (int j = 0; j < n; j++) y[j] *= d[head * n + j];
            } else {
                for (int j = 0; j < n; j++) y[j] *= d[head * n + j];
                y = hadamard(y, 0, n);
            }
        }
        return y;
    }

    @Test
    public void codebookQuantizeRotatedSketchedSignsTheProjectedResidualOfEachRow() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(30).forAll(Gens.oneOf(List.of(0, 1, 2, 3, 4)), integers().between(0, 5), Gens.oneOf(types), integers().between(0, 1_000_000))
                .checkAssert((bits, shape, type, seed) -> {
                    int n = shape % 2 == 0 ? 64 : 128;
                    int heads = 1 + shape / 2;
                    int tokens = 1 + seed % 5;
                    int[] dims = {2, heads, tokens, n};
                    Ref x = Gens.uniform(dims, seed, 2.0, type);
                    Ref signs = signs(heads, n, seed);
                    List<Ref> blocks = new java.util.ArrayList<>();
                    for (int k = 0; k <= seed % 3; k++) blocks.add(signs(heads, n, seed + 1 + k));
                    // a sorted book around the rotated coordinates' spread, its midpoints as boundaries
                    java.util.Random rnd = new java.util.Random(seed);
                    double[] book = new double[bits == 0 ? 0 : 1 << bits];
                    for (int i = 0; i < book.length; i++) book[i] = (float) (rnd.nextGaussian() * 1.5 / Math.sqrt(n));
                    Arrays.sort(book);
                    double[] b = new double[Math.max(0, book.length - 1)];
                    for (int i = 0; i < b.length; i++) b[i] = (float) ((book[i] + book[i + 1]) / 2);
                    int rows = x.size() / n;
                    double[] norms = new double[rows];
                    double[] residualNorms = new double[rows];
                    int[] wantCodes = new int[x.size()];
                    boolean[] wantBits = new boolean[x.size()];
                    boolean[] near = new boolean[x.size()];
                    boolean[] rowNear = new boolean[rows]; // a code near its boundary: the row's residual depends on it
                    for (int r = 0; r < rows; r++) {
                        int head = (r / tokens) % heads;
                        double[] signed = new double[n];
                        for (int j = 0; j < n; j++) signed[j] = x.values()[r * n + j] * signs.values()[head * n + j];
                        double[] y = hadamard(signed, 0, n);
                        double ss = 0;
                        for (double v : y) ss += v * v;
                        norms[r] = Math.sqrt(ss);
                        double[] residual = new double[n];
                        for (int j = 0; j < n; j++) {
                            double u = y[j] / Math.max(norms[r], Float.MIN_NORMAL);
                            for (double v : b) {
                                if (u > v) wantCodes[r * n + j]++;
                                if (Math.abs(u - v) <= 1e-5) rowNear[r] = near[r * n + j] = true;
                            }
                            residual[j] = u - (bits == 0 ? 0 : book[wantCodes[r * n + j]]);
                        }
                        double rs = 0;
                        for (double v : residual) rs += v * v;
                        residualNorms[r] = Math.sqrt(rs) * norms[r]; // the residual in x's scale
                        double[] p = sketchChain(residual, blocks, head, false);
                        for (int j = 0; j < n; j++) {
                            wantBits[r * n + j] = p[j] > 0;
                            if (Math.abs(p[j]) <= 1e-5) near[r * n + j] = true; // f32 error may cross zero
                        }
                    }
                    float[] bf = new float[b.length];
                    for (int i = 0; i < b.length; i++) bf[i] = (float) b[i];
                    float[] cf = new float[book.length];
                    for (int i = 0; i < cf.length; i++) cf[i] = (float) book[i];
                    List<Tensor> owned = new java.util.ArrayList<>();
                    try {
                        Tensor tx = input(x, type);
                        owned.add(tx);
                        Tensor ts = input(signs, DType.F32);
                        owned.add(ts);
                        List<Tensor> tb = new java.util.ArrayList<>();
                        for (Ref block : blocks) tb.add(input(block, DType.F32));
                        owned.addAll(tb);
                        Tensor cb = bits == 0 ? null : backend().fromFloats(cf, Shape.of(cf.length), DType.F32);
                        Tensor bounds = bits == 0 ? null : backend().fromFloats(bf, Shape.of(bf.length), DType.F32);
                        if (cb != null) owned.addAll(List.of(cb, bounds));
                        String what = "codebookQuantizeRotatedSketched " + bits + " bits, " + blocks.size() + " blocks, " + type + " x " + Arrays.toString(dims);
                        try (SketchedCodes q = kernels.codebookQuantizeRotatedSketched(tx, ts, cb, bounds, bits, tb)) {
                            int[] lead = {2, heads, tokens};
                            assertClose(what + " norms", q.norms(), DType.F32, new Ref(References.concat(lead, 1), norms), null);
                            double[] someRows = residualNorms.clone();
                            Ref got = read(q.residualNorms());
                            for (int r = 0; r < rows; r++) if (rowNear[r]) someRows[r] = got.values()[r];
                            assertClose(what + " residual norms", q.residualNorms(), DType.F32, new Ref(References.concat(lead, 1), someRows),
                                    norms.clone());
                            if (bits == 0) {
                                assertTrue(q.codes() == null, what + ": codes without codebook bits");
                            } else {
                                assertShape(what + " codes", q.codes(), DType.U32, References.concat(lead, n * bits / 32));
                                int[] codes = AffineReference.unpack(backend().toInts(q.codes()), rows, n, bits);
                                for (int i = 0; i < codes.length; i++) {
                                    if (!near[i] && !rowNear[i / n] && codes[i] != wantCodes[i]) {
                                        throw new AssertionError(what + " at " + Arrays.toString(Ref.unravel(i, dims)) + ": expected code "
                                                + wantCodes[i] + ", found " + codes[i]);
                                    }
                                }
                            }
                            assertShape(what + " sketch", q.sketch(), DType.U32, References.concat(lead, n / 32));
                            int[] sketch = AffineReference.unpack(backend().toInts(q.sketch()), rows, n, 1);
                            for (int i = 0; i < sketch.length; i++) {
                                if (!near[i] && !rowNear[i / n] && (sketch[i] == 1) != wantBits[i]) {
                                    throw new AssertionError(what + " at " + Arrays.toString(Ref.unravel(i, dims)) + ": expected sketch bit "
                                            + (wantBits[i] ? 1 : 0) + ", found " + sketch[i]);
                                }
                            }
                        }
                    } finally {
                        closeAll(owned);
                    }
                });
    }

    @Test
    public void codebookDequantizeRotatedSketchedUnrotatesCodesPlusTheTransposedSketch() {
        CodebookKernels kernels = codebookKernels();
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        Gen<Object[]> cases = in -> {
            int heads = draw(in, 1, 3);
            int n = draw(in, 0, 1) == 0 ? 64 : 128;
            int[] lead = {2, heads, draw(in, 1, 4)};
            Codes sketch = codes(lead, 1, n).generate(in);
            Codes codes = draw(in, 0, 3) == 0 ? null : codes(lead, Gens.oneOf(BITS).generate(in), n).generate(in);
            int seed = draw(in, 0, 1_000_000);
            List<Ref> blocks = new java.util.ArrayList<>();
            for (int k = 0; k <= seed % 3; k++) blocks.add(signs(heads, n, seed + 1 + k));
            return new Object[] {codes, sketch, blocks, signs(heads, n, seed), Gens.oneOf(types).generate(in)};
        };
        qt(40).forAll(Gens.described(cases)).checkAssert(cs -> {
            Codes codes = (Codes) cs[0];
            Codes sketch = (Codes) cs[1];
            @SuppressWarnings("unchecked")
            List<Ref> blocks = (List<Ref>) cs[2];
            Ref signs = (Ref) cs[3];
            DType type = (DType) cs[4];
            int n = sketch.cols();
            int heads = signs.dim(0);
            int perHead = sketch.dims[2];
            Ref terms = sketch.dense();
            Ref values = codes == null ? null : codes.dense();
            double[] want = new double[terms.size()];
            double[] mag = new double[terms.size()];
            for (int r = 0; r < terms.size() / n; r++) {
                int head = (r / perHead) % heads;
                double[] t = sketchChain(Arrays.copyOfRange(terms.values(), r * n, (r + 1) * n), blocks, head, true);
                double abs = 0;
                for (int j = 0; j < n; j++) {
                    abs += Math.abs(terms.values()[r * n + j]) * blocks.size();
                    if (values != null) {
                        t[j] += values.values()[r * n + j];
                        abs += Math.abs(values.values()[r * n + j]);
                    }
                }
                double[] y = hadamard(t, 0, n);
                for (int j = 0; j < n; j++) {
                    want[r * n + j] = signs.values()[head * n + j] * y[j];
                    mag[r * n + j] = abs / Math.sqrt(n);
                }
            }
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                CodebookMatrix w = codes == null ? null : matrix(codes, owned);
                CodebookMatrix z = matrix(sketch, owned);
                List<Tensor> tb = new java.util.ArrayList<>();
                for (Ref block : blocks) tb.add(input(block, DType.F32));
                owned.addAll(tb);
                Tensor ts = input(signs, DType.F32);
                owned.add(ts);
                try (Tensor r = kernels.codebookDequantizeRotatedSketched(w, z, tb, ts, type)) {
                    assertClose("codebookDequantizeRotatedSketched to " + type + ", codes " + codes + ", sketch " + sketch + ", "
                            + blocks.size() + " blocks", r, type, new Ref(sketch.dims, want), mag);
                }
            } finally {
                closeAll(owned);
            }
        });
    }

    @Test
    public void hadamardRotateRefusesAnAxisThatIsNotAPowerOfTwo() {
        CodebookKernels kernels = codebookKernels();
        try (Tensor x = ops().zeros(Shape.of(2, 96), DType.F32); Tensor s = ops().zeros(Shape.of(96), DType.F32)) {
            assertThrows(IllegalArgumentException.class, () -> kernels.hadamardRotate(x, s, false));
        }
    }

    @Test
    public void sketchedOpsRefuseRowsTheyCannotSketchNamingWhatIsWrong() {
        CodebookKernels kernels = codebookKernels();
        try (Tensor x96 = ops().zeros(Shape.of(1, 2, 3, 96), DType.F32); Tensor s96 = ops().zeros(Shape.of(2, 1, 96), DType.F32);
             Tensor x32 = ops().zeros(Shape.of(1, 2, 3, 32), DType.F32); Tensor s32 = ops().zeros(Shape.of(2, 1, 32), DType.F32);
             Tensor x64 = ops().zeros(Shape.of(1, 2, 3, 64), DType.F32); Tensor s64 = ops().zeros(Shape.of(2, 1, 64), DType.F32);
             Tensor book = ops().zeros(Shape.of(4), DType.F32); Tensor bounds = ops().zeros(Shape.of(3), DType.F32)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> kernels.codebookQuantizeRotatedSketched(x96, s96, book, bounds, 2, List.of(s96)));
            assertTrue(e.getMessage().contains("power of two"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> kernels.codebookQuantizeRotatedSketched(x32, s32, book, bounds, 2, List.of(s32)));
            assertTrue(e.getMessage().contains("64"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> kernels.codebookQuantizeRotatedSketched(x64, s64, book, bounds, 2, List.of()));
            assertTrue(e.getMessage().contains("sketch"), e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> kernels.codebookQuantizeRotatedSketched(x64, s64, book, bounds, 3, List.of(s64))); // boundaries of 2 bits
            // a 2-bit "sketch", and codes whose rows differ from the sketch's
            List<Tensor> owned = new java.util.ArrayList<>();
            try {
                Tensor words2 = backend().fromInts(new int[2 * 3 * 4], Shape.of(1, 2, 3, 4), DType.U32);
                Tensor words1 = backend().fromInts(new int[2 * 3 * 2], Shape.of(1, 2, 3, 2), DType.U32);
                Tensor words1long = backend().fromInts(new int[2 * 4 * 4], Shape.of(1, 2, 4, 4), DType.U32);
                Tensor signBook = backend().fromFloats(new float[] {-1, 1}, Shape.of(2), DType.F32);
                owned.addAll(List.of(words2, words1, words1long, signBook));
                CodebookMatrix twoBit = new CodebookMatrix(words2, book, null, 2);
                CodebookMatrix sketch = new CodebookMatrix(words1, signBook, null, 1);
                e = assertThrows(IllegalArgumentException.class,
                        () -> kernels.codebookDequantizeRotatedSketched(null, twoBit, List.of(s64), s64, DType.F32));
                assertTrue(e.getMessage().contains("1-bit"), e.getMessage());
                CodebookMatrix otherRows = new CodebookMatrix(words1long, signBook, null, 1);
                assertThrows(IllegalArgumentException.class,
                        () -> kernels.codebookDequantizeRotatedSketched(otherRows, sketch, List.of(s64), s64, DType.F32));
            } finally {
                closeAll(owned);
            }
        }
    }
}
