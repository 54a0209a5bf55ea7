package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.RopeSpec;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;

/**
 * Batch invariance of the row ops on a decoder's path ({@link BatchInvarianceTck}): a row of x through
 * {@code matmul} against every weight format (x·Wᵀ as a linear layer, and x·W), {@code quantizedMatmul}
 * at every width both ways, RMSNorm and LayerNorm, RoPE at per-row offsets, the activations, softmax
 * with leading −∞ (a padded row), and the KV encoders ({@code quantize}, {@code hadamardRotate},
 * {@code codebookQuantizeRotated}, {@code codebookQuantizeRotatedSketched}) gives the bits it gives alone, in batches of 2 to 40 rows (a prefill's
 * tokens are such rows) with other rows of random values; RoPE's tokens of a multi-token call match each
 * token fed alone at its position.
 */
public abstract class RowOpsBatchInvarianceTck extends BatchInvarianceTck {

    private static int draw(RandomnessSource in, int lo, int hi) {
        return integers().between(lo, hi).generate(in);
    }

    /** Rows of a batch: a decode batch mostly, sometimes a prefill's worth (past the kernels' row tiles). */
    private static int batchRows(RandomnessSource in) {
        return draw(in, 0, 4) == 0 ? draw(in, 13, 40) : draw(in, 2, 12);
    }

    /** Lengths of the reduced axis: short mostly (vector tails), sometimes a real model's (blocks and tiles). */
    private static int length(RandomnessSource in, int max) {
        return draw(in, 0, 5) == 0 ? draw(in, 1024, 2100) : draw(in, 1, max);
    }

    /** x [rows, k] and a weight of {@code wDims}, values of unit spread. */
    private record MatmulCase(Ref x, Ref w, DType wType, boolean linear, boolean folded) {
        @Override
        public String toString() {
            return "x " + x.shape() + (folded ? " (as [rows, 1, k])" : "") + (linear ? " · wᵀ, w " : " · w, w ") + w.shape() + " " + wType;
        }
    }

    private Gen<MatmulCase> matmulCases() {
        List<DType> weightTypes = List.copyOf(supported(DType.F32, DType.BF16, DType.F16));
        return in -> {
            int m = batchRows(in);
            int k = length(in, 300);
            int n = draw(in, 1, 70);
            boolean linear = draw(in, 0, 3) > 0;
            DType wType = Gens.oneOf(weightTypes).generate(in);
            Ref x = Gens.uniform(new int[] {m, k}, draw(in, 0, 1 << 20), 2, DType.F32);
            Ref w = Gens.uniform(linear ? new int[] {n, k} : new int[] {k, n}, draw(in, 0, 1 << 20), 0.1, wType);
            return new MatmulCase(x, w, wType, linear, draw(in, 0, 2) == 0);
        };
    }

    /** {@code x [rows, k]} (or {@code [rows, 1, k]}) times the weight as the case uses it. */
    private float[] product(MatmulCase c, Tensor w, float[] x, int rows) {
        int k = c.x.dim(1);
        Shape shape = c.folded ? Shape.of(rows, 1, k) : Shape.of(rows, k);
        try (Tensor tx = backend().fromFloats(x, shape, DType.F32);
             Tensor wt = c.linear ? ops().transpose(w, 1, 0) : ops().copy(w);
             Tensor r = ops().matmul(tx, wt)) {
            return floats(r);
        }
    }

    @Test
    public void matmulGivesEachRowItsBitsAloneForEveryWeightFormat() {
        qt(40).forAll(matmulCases()).checkAssert(c -> {
            int m = c.x.dim(0);
            int k = c.x.dim(1);
            float[] x = c.x.toFloats();
            try (Tensor w = input(c.w, c.wType)) {
                float[] all = product(c, w, x, m);
                int n = all.length / m;
                for (int r = 0; r < m; r++) {
                    float[] alone = product(c, w, rows(x, k, r, r + 1), 1);
                    assertSameBits("matmul " + c + ", row " + r, alone, 0, all, r * n, n);
                }
            }
        });
    }

    private record QuantCase(Ref x, Ref w, DType wType, int bits, int group, boolean transpose) {
        @Override
        public String toString() {
            return "x " + x.shape() + " with w " + w.shape() + " " + wType + " quantized to " + bits + " bits in groups of " + group
                    + (transpose ? ", transposed" : "");
        }
    }

    private Gen<QuantCase> quantCases() {
        List<DType> weightTypes = List.copyOf(supported(DType.F32, DType.BF16));
        return in -> {
            int m = batchRows(in);
            int bits = Gens.oneOf(List.of(2, 3, 4, 5, 6, 8)).generate(in);
            int group = Gens.oneOf(List.of(32, 64, 128)).generate(in);
            boolean transpose = draw(in, 0, 3) > 0;
            // the quantized axis: k for x·Wᵀ, n for x·W; whole groups, and whole 32-bit words at every width
            int quantized = group * (draw(in, 0, 5) == 0 ? draw(in, 16, 40) : draw(in, 1, 6));
            int other = draw(in, 1, 40);
            int k = transpose ? quantized : other;
            int n = transpose ? other : quantized;
            DType wType = Gens.oneOf(weightTypes).generate(in);
            Ref x = Gens.uniform(new int[] {m, k}, draw(in, 0, 1 << 20), 2, DType.F32);
            Ref w = Gens.uniform(transpose ? new int[] {n, k} : new int[] {k, n}, draw(in, 0, 1 << 20), 0.1, wType);
            return new QuantCase(x, w, wType, bits, group, transpose);
        };
    }

    @Test
    public void quantizedMatmulGivesEachRowItsBitsAloneAtEveryWidth() {
        qt(40).forAll(quantCases()).checkAssert(c -> {
            int m = c.x.dim(0);
            int k = c.x.dim(1);
            float[] x = c.x.toFloats();
            try (Tensor w = input(c.w, c.wType); QuantizedMatrix q = ops().quantize(w, c.group, c.bits)) {
                float[] all;
                try (Tensor tx = backend().fromFloats(x, Shape.of(m, k), DType.F32); Tensor r = ops().quantizedMatmul(tx, q, c.transpose)) {
                    all = floats(r);
                }
                int n = all.length / m;
                for (int r = 0; r < m; r++) {
                    try (Tensor tx = backend().fromFloats(rows(x, k, r, r + 1), Shape.of(1, k), DType.F32);
                         Tensor one = ops().quantizedMatmul(tx, q, c.transpose)) {
                        assertSameBits("quantizedMatmul " + c + ", row " + r, floats(one), 0, all, r * n, n);
                    }
                }
            }
        });
    }

    /** Applies an op to x [rows, d] (a new tensor). */
    @FunctionalInterface
    private interface RowOp {
        Tensor apply(Tensor x);
    }

    /** Checks that {@code op} of each row of x alone gives that row's bits in {@code op} of all of them. */
    private void rowsAlone(String what, float[] x, int rows, int d, DType dtype, RowOp op) {
        float[] all;
        try (Tensor tx = backend().fromFloats(x, Shape.of(rows, d), dtype); Tensor r = op.apply(tx)) {
            all = floats(r);
        }
        int width = all.length / rows;
        for (int r = 0; r < rows; r++) {
            try (Tensor tx = backend().fromFloats(rows(x, d, r, r + 1), Shape.of(1, d), dtype); Tensor one = op.apply(tx)) {
                assertSameBits(what + ", row " + r + " of " + rows, floats(one), 0, all, r * width, width);
            }
        }
    }

    @Test
    public void normsActivationsAndSoftmaxGiveEachRowItsBitsAlone() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(40).forAll(integers().between(0, 1 << 20), Gens.oneOf(types)).checkAssert((seed, dtype) -> {
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            int rows = random.nextInt(4) == 0 ? 13 + random.nextInt(28) : 2 + random.nextInt(11);
            int d = random.nextInt(5) == 0 ? 1024 + random.nextInt(1100) : 1 + random.nextInt(300);
            float[] x = Gens.uniform(new int[] {rows, d}, seed, 4, dtype).toFloats();
            Ref weight = Gens.uniform(new int[] {d}, seed + 1, 2, dtype);
            Ref bias = Gens.uniform(new int[] {d}, seed + 2, 1, dtype);
            try (Tensor w = input(weight, dtype); Tensor b = input(bias, dtype)) {
                rowsAlone("rmsNorm " + dtype + " d=" + d, x, rows, d, dtype, t -> ops().rmsNorm(t, w, 1e-6));
                rowsAlone("layerNorm " + dtype + " d=" + d, x, rows, d, dtype, t -> ops().layerNorm(t, w, b, 1e-5));
            }
            for (UnaryOp op : List.of(UnaryOp.SILU, UnaryOp.GELU, UnaryOp.GELU_TANH, UnaryOp.SIGMOID, UnaryOp.TANH, UnaryOp.EXP)) {
                rowsAlone(op + " " + dtype + " d=" + d, x, rows, d, dtype, t -> ops().unary(op, t));
            }
            rowsAlone("softmax " + dtype + " d=" + d, x, rows, d, dtype, t -> ops().softmax(t, -1));
            // a row's softmax after p columns of −∞ (its left padding in a batch) is its softmax alone, then zeros
            int p = 1 + random.nextInt(40);
            float[] padded = new float[p + d];
            java.util.Arrays.fill(padded, 0, p, Float.NEGATIVE_INFINITY);
            System.arraycopy(x, 0, padded, p, d);
            try (Tensor alone = backend().fromFloats(rows(x, d, 0, 1), Shape.of(1, d), dtype); Tensor sa = ops().softmax(alone, -1);
                 Tensor withPadding = backend().fromFloats(padded, Shape.of(1, p + d), dtype); Tensor sp = ops().softmax(withPadding, -1)) {
                assertSameBits("softmax " + dtype + " of a row after " + p + " columns of -inf", floats(sa), 0, floats(sp), p, d);
            }
        });
    }

    @Test
    public void ropeGivesEachRowAndEachTokenItsBitsAlone() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(40).forAll(integers().between(0, 1 << 20), Gens.oneOf(types), Generate.booleans()).checkAssert((seed, dtype, traditional) -> {
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            int b = 2 + random.nextInt(7);
            int h = 1 + random.nextInt(4);
            int t = 1 + random.nextInt(9);
            int d = 2 * (1 + random.nextInt(64));
            RopeSpec spec = new RopeSpec(2 * (1 + random.nextInt(d / 2)), random.nextBoolean() ? 10000.0 : 1_000_000.0, traditional,
                    random.nextInt(3) == 0 ? 0.25 : 1.0, java.util.Optional.empty());
            int[] offsets = new int[b];
            for (int i = 0; i < b; i++) offsets[i] = random.nextInt(3000);
            float[] x = Gens.uniform(new int[] {b, h, t, d}, seed, 2, dtype).toFloats();
            float[] all = rope(x, Shape.of(b, h, t, d), dtype, spec, offsets);
            int perRow = h * t * d;
            for (int r = 0; r < b; r++) {
                float[] alone = rope(rows(x, perRow, r, r + 1), Shape.of(1, h, t, d), dtype, spec, new int[] {offsets[r]});
                assertSameBits("rope " + spec + " " + dtype + ", row " + r + " of " + b, alone, 0, all, r * perRow, perRow);
                for (int i = 0; i < t; i++) {
                    // token i of the row, fed alone at its position
                    float[] token = new float[h * d];
                    float[] batched = new float[h * d];
                    for (int j = 0; j < h; j++) {
                        System.arraycopy(x, r * perRow + (j * t + i) * d, token, j * d, d);
                        System.arraycopy(all, r * perRow + (j * t + i) * d, batched, j * d, d);
                    }
                    float[] fed = rope(token, Shape.of(1, h, 1, d), dtype, spec, new int[] {offsets[r] + i});
                    assertSameBits("rope " + spec + " " + dtype + ", row " + r + " token " + i + " of " + t + " fed alone", fed, batched);
                }
            }
        });
    }

    private float[] rope(float[] x, Shape shape, DType dtype, RopeSpec spec, int[] offsets) {
        try (Tensor tx = backend().fromFloats(x, shape, dtype); Tensor to = backend().fromInts(offsets, Shape.of(offsets.length), DType.I32);
             Tensor r = ops().rope(tx, spec, to)) {
            return floats(r);
        }
    }

    /** The codebook encoders under test: the backend's {@link CodebookKernels}, or none (then only {@code quantize} is checked). */
    protected Optional<CodebookKernels> codebookKernels() {
        return backend().kernel(CodebookKernels.class);
    }

    @Test
    public void kvEncodersGiveEachTokenItsBitsAlone() {
        CodebookKernels codebook = codebookKernels().orElse(null);
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(30).forAll(integers().between(0, 1 << 20), Gens.oneOf(types)).checkAssert((seed, dtype) -> {
            java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
            int heads = 1 + random.nextInt(2);
            int tokens = 2 + random.nextInt(20);
            int d = random.nextBoolean() ? 64 : 128;
            int bits = List.of(2, 3, 4, 5, 6, 8).get(random.nextInt(6));
            int group = List.of(32, 64).get(random.nextInt(2));
            Ref x = Gens.uniform(new int[] {1, heads, tokens, d}, seed, 3, dtype);
            Ref signs = new Ref(new int[] {heads, 1, d}, random.doubles(heads * d).map(v -> v < 0.5 ? -1 : 1).toArray());
            int bookBits = List.of(1, 2, 3, 4).get(random.nextInt(4));
            float[] bounds = new float[(1 << bookBits) - 1];
            for (int i = 0; i < bounds.length; i++) bounds[i] = (float) (random.nextGaussian() / Math.sqrt(d));
            java.util.Arrays.sort(bounds);
            try (Tensor all = input(x, dtype); Tensor ts = input(signs, DType.F32); Tensor book = ops().zeros(Shape.of(1 << bookBits), DType.F32);
                 Tensor tb = backend().fromFloats(bounds, Shape.of(bounds.length), DType.F32)) {
                List<int[]> batched = encodings(codebook, all, ts, book, tb, group, bits, bookBits);
                for (int t = 0; t < tokens; t++) {
                    try (Tensor one = ops().slice(all, 2, t, t + 1); Tensor copy = ops().copy(one)) {
                        List<int[]> alone = encodings(codebook, copy, ts, book, tb, group, bits, bookBits);
                        for (int e = 0; e < alone.size(); e++) {
                            int[] a = alone.get(e);
                            int[] b = batched.get(e);
                            int per = b.length / (heads * tokens);
                            for (int h = 0; h < heads; h++) {
                                for (int i = 0; i < per; i++) {
                                    if (a[h * per + i] != b[(h * tokens + t) * per + i]) {
                                        throw new AssertionError(ENCODINGS.get(e) + " of token " + t + " of " + tokens + " (" + dtype + ", d=" + d
                                                + ", " + bits + "-bit affine g" + group + ", " + bookBits + "-bit codebook), head " + h
                                                + ": its bits alone differ at " + i);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        });
    }

    private static final List<String> ENCODINGS = List.of("quantize packed", "quantize scales", "quantize biases", "hadamardRotate",
            "codebookQuantizeRotated packed", "codebookQuantizeRotated norms", "codebookQuantizeRotatedSketched codes",
            "codebookQuantizeRotatedSketched norms", "codebookQuantizeRotatedSketched sketch", "codebookQuantizeRotatedSketched residual norms");

    /** The raw bits of every encoding of x [1, heads, tokens, d], in {@link #ENCODINGS}' order (the codebook ones when codebook is not null). */
    private List<int[]> encodings(CodebookKernels codebook, Tensor x, Tensor signs, Tensor book, Tensor bounds, int group, int bits, int bookBits) {
        List<int[]> out = new ArrayList<>();
        try (QuantizedMatrix q = ops().quantize(x, group, bits)) {
            out.add(backend().toInts(q.packed()));
            out.add(bitsOf(floats(q.scales())));
            out.add(bitsOf(floats(q.biases())));
        }
        if (codebook == null) return out;
        try (Tensor rotated = codebook.hadamardRotate(x, signs, false)) {
            out.add(bitsOf(floats(rotated)));
        }
        CodebookMatrix c = codebook.codebookQuantizeRotated(x, signs, book, bounds, bookBits);
        try (Tensor packed = c.packed(); Tensor norms = c.rowScales()) {
            out.add(backend().toInts(packed));
            out.add(bitsOf(floats(norms)));
        }
        // TurboQuant's QJL keys: codes, norm, the residual's sketch signs (the signs reversed as a second sketch rotation)
        try (Tensor sketchSigns = ops().mul(signs, -1.0);
             SketchedCodes q = codebook.codebookQuantizeRotatedSketched(x, signs, book, bounds, bookBits, List.of(sketchSigns))) {
            out.add(backend().toInts(q.codes()));
            out.add(bitsOf(floats(q.norms())));
            out.add(backend().toInts(q.sketch()));
            out.add(bitsOf(floats(q.residualNorms())));
        }
        return out;
    }

    private static int[] bitsOf(float[] v) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = Float.floatToRawIntBits(v[i]);
        return out;
    }
}
