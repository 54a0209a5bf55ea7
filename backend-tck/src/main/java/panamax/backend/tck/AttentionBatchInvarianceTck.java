package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.AffineKvKernels;
import panamax.api.tensor.kernel.CodebookAttentionKernels;
import panamax.api.tensor.kernel.CodebookMatrix;

/**
 * Batch invariance of attention over every kind of KV plane a codec keeps ({@link BatchInvarianceTck}):
 * f32 and bf16 keys and values ({@code scaledDotProductAttention}), affine codes at every width
 * ({@code quantizedAttention}) and codebook codes with and without a sketch ({@code codebookAttention}).
 * A batch of rows of different lengths is laid out as a layout keeps it — each row's tokens at the right
 * end, left padding of random values before them, an explicit BOOL mask (causal, optionally a window) —
 * and each row's output must be the bits of that row alone (its own tokens only, a {@code Causal} mask),
 * which in turn must be, query by query, the bits of each query alone over the keys it sees (a
 * prefill's token against a decode step's). Rows alone read their planes as views of the batch's.
 * Quantized planes are attended by the optional kernels ({@link #affineKvKernels()},
 * {@link #codebookAttentionKernels()}); a kind whose kernel is absent is not drawn, and a case the
 * kernel declines is not checked (its caller composes it).
 */
public abstract class AttentionBatchInvarianceTck extends BatchInvarianceTck {

    private enum Planes { F32, BF16, AFFINE, CODEBOOK, SKETCHED }

    private record Case(Planes planes, int rows, int hkv, int hq, int tq, int[] lengths, int columns, int d, int dv, int window,
                        double scale, int bits, int group, long seed) {
        @Override
        public String toString() {
            return planes + (planes == Planes.AFFINE ? " " + bits + "-bit g" + group : planes.ordinal() >= 3 ? " " + bits + "-bit" : "")
                    + ", heads " + hq + "/" + hkv + ", " + tq + " queries, row lengths " + java.util.Arrays.toString(lengths) + " in "
                    + columns + " columns, d " + d + ", dv " + dv + (window > 0 ? ", window " + window : "");
        }
    }

    private static int draw(RandomnessSource in, int lo, int hi) {
        return integers().between(lo, hi).generate(in);
    }

    /** The affine-plane attention under test: the backend's {@link AffineKvKernels}, or none. */
    protected Optional<AffineKvKernels> affineKvKernels() {
        return backend().kernel(AffineKvKernels.class);
    }

    /** The codebook-plane attention under test: the backend's {@link CodebookAttentionKernels}, or none. */
    protected Optional<CodebookAttentionKernels> codebookAttentionKernels() {
        return backend().kernel(CodebookAttentionKernels.class);
    }

    private AffineKvKernels affine;
    private CodebookAttentionKernels codebook;

    private Gen<Case> cases(int maxLength) {
        affine = affineKvKernels().orElse(null);
        codebook = codebookAttentionKernels().orElse(null);
        List<Planes> kinds = new ArrayList<>(List.of(Planes.F32));
        if (affine != null) kinds.add(Planes.AFFINE);
        if (codebook != null) kinds.addAll(List.of(Planes.CODEBOOK, Planes.SKETCHED));
        if (backend().capabilities().storageTypes().contains(DType.BF16)) kinds.add(Planes.BF16);
        return in -> {
            Planes planes = Gens.oneOf(kinds).generate(in);
            int rows = draw(in, 2, 4);
            int hkv = draw(in, 1, 2);
            int hq = hkv * draw(in, 1, 4);
            int tq = draw(in, 1, 4);
            int[] lengths = new int[rows];
            int columns = 0;
            for (int r = 0; r < rows; r++) {
                lengths[r] = draw(in, tq, maxLength);
                columns = Math.max(columns, lengths[r]);
            }
            columns += draw(in, 0, 3);
            boolean quantized = planes == Planes.AFFINE || planes == Planes.CODEBOOK || planes == Planes.SKETCHED;
            int d = quantized ? Gens.oneOf(List.of(32, 64, 128)).generate(in) : Gens.oneOf(List.of(8, 16, 32, 64, 80)).generate(in);
            int dv = quantized ? Gens.oneOf(List.of(32, 64, 128)).generate(in) : draw(in, 1, 70);
            // 1-bit codebook rows hold a multiple of 64 codes
            int bits = planes == Planes.AFFINE ? Gens.oneOf(List.of(2, 3, 4, 5, 6, 8)).generate(in)
                    : draw(in, d % 64 == 0 && dv % 64 == 0 ? 1 : 2, 4);
            int group = planes == Planes.AFFINE ? Gens.oneOf(List.of(32, 64).stream().filter(g -> d % g == 0 && dv % g == 0).toList()).generate(in) : 32;
            int window = draw(in, 0, 2) == 0 ? draw(in, 1, 6) : 0;
            double scale = draw(in, 0, 1) == 0 ? 1 / Math.sqrt(d) : draw(in, 10, 200) * 0.01;
            return new Case(planes, rows, hkv, hq, tq, lengths, columns, d, dv, window, scale, bits, group, draw(in, 0, 1 << 20));
        };
    }

    /** The keys and values of a batch (or of one row: views of the batch's planes), in the case's form. */
    private record Kv(Tensor k, Tensor v, QuantizedMatrix qk, QuantizedMatrix qv, CodebookMatrix ck, CodebookMatrix cv, CodebookMatrix sketch) {
    }

    /** Random codes packed as {@code [rows, hkv, columns, cols·bits/32]} U32. */
    private Tensor codes(Case c, int cols, int bits, long seed, List<Tensor> owned) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        int vectors = c.rows * c.hkv * c.columns;
        int[] codes = random.ints((long) vectors * cols, 0, 1 << bits).toArray();
        return keep(owned, backend().fromInts(AffineReference.pack(codes, vectors, cols, bits), Shape.of(c.rows, c.hkv, c.columns, cols * bits / 32), DType.U32));
    }

    private Tensor floatsOf(float[] values, Shape shape, DType dtype, List<Tensor> owned) {
        return keep(owned, backend().fromFloats(values, shape, dtype));
    }

    private static Tensor keep(List<Tensor> owned, Tensor t) {
        owned.add(t);
        return t;
    }

    /** The whole batch's planes: values of unit spread in every column, padding included. */
    private Kv batch(Case c, List<Tensor> owned) {
        Shape keys = Shape.of(c.rows, c.hkv, c.columns, c.d);
        Shape values = Shape.of(c.rows, c.hkv, c.columns, c.dv);
        Ref k = Gens.uniform(keys.dims(), c.seed, 1, DType.F32);
        Ref v = Gens.uniform(values.dims(), c.seed + 1, 1, DType.F32);
        switch (c.planes) {
            case F32, BF16 -> {
                DType type = c.planes == Planes.F32 ? DType.F32 : DType.BF16;
                return new Kv(floatsOf(k.toFloats(), keys, type, owned), floatsOf(v.toFloats(), values, type, owned), null, null, null, null, null);
            }
            case AFFINE -> {
                QuantizedMatrix qk = ops().quantize(floatsOf(k.toFloats(), keys, DType.F32, owned), c.group, c.bits);
                QuantizedMatrix qv = ops().quantize(floatsOf(v.toFloats(), values, DType.F32, owned), c.group, c.bits);
                owned.addAll(List.of(qk.packed(), qk.scales(), qk.biases(), qv.packed(), qv.scales(), qv.biases()));
                return new Kv(null, null, qk, qv, null, null, null);
            }
            default -> {
                java.util.SplittableRandom random = new java.util.SplittableRandom(c.seed + 2);
                float[] book = new float[1 << c.bits];
                for (int i = 0; i < book.length; i++) book[i] = (float) random.nextGaussian(0, 0.2);
                float[] signBook = {-1f, 1f};
                Tensor tb = floatsOf(book, Shape.of(book.length), DType.F32, owned);
                Shape norms = Shape.of(c.rows, c.hkv, c.columns, 1);
                int n = c.rows * c.hkv * c.columns;
                CodebookMatrix ck = new CodebookMatrix(codes(c, c.d, c.bits, c.seed + 3, owned), tb,
                        floatsOf(toFloats(random.doubles(n, 0.5, 2)), norms, DType.F32, owned), c.bits);
                CodebookMatrix cv = new CodebookMatrix(codes(c, c.dv, c.bits, c.seed + 4, owned), tb,
                        floatsOf(toFloats(random.doubles(n, 0.5, 2)), norms, DType.F32, owned), c.bits);
                CodebookMatrix sketch = c.planes != Planes.SKETCHED ? null : new CodebookMatrix(codes(c, 64, 1, c.seed + 5, owned),
                        floatsOf(signBook, Shape.of(2), DType.F32, owned), floatsOf(toFloats(random.doubles(n, 0, 0.1)), norms, DType.F32, owned), 1);
                return new Kv(null, null, null, null, ck, cv, sketch);
            }
        }
    }

    private static float[] toFloats(java.util.stream.DoubleStream values) {
        double[] d = values.toArray();
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) f[i] = (float) d[i];
        return f;
    }

    /** Columns {@code [from, to)} of row r of a plane, as a view. */
    private Tensor part(Tensor plane, int r, int from, int to, List<Tensor> owned) {
        if (plane == null) return null;
        return keep(owned, ops().slice(keep(owned, ops().slice(plane, 0, r, r + 1)), 2, from, to));
    }

    /** Columns {@code [from, to)} of row r of every plane of {@code all}, as views. */
    private Kv part(Kv all, int r, int from, int to, List<Tensor> owned) {
        return new Kv(part(all.k, r, from, to, owned), part(all.v, r, from, to, owned),
                all.qk == null ? null : new QuantizedMatrix(part(all.qk.packed(), r, from, to, owned), part(all.qk.scales(), r, from, to, owned),
                        part(all.qk.biases(), r, from, to, owned), all.qk.groupSize(), all.qk.bits()),
                all.qv == null ? null : new QuantizedMatrix(part(all.qv.packed(), r, from, to, owned), part(all.qv.scales(), r, from, to, owned),
                        part(all.qv.biases(), r, from, to, owned), all.qv.groupSize(), all.qv.bits()),
                codebookPart(all.ck, r, from, to, owned), codebookPart(all.cv, r, from, to, owned), codebookPart(all.sketch, r, from, to, owned));
    }

    private CodebookMatrix codebookPart(CodebookMatrix m, int r, int from, int to, List<Tensor> owned) {
        return m == null ? null : new CodebookMatrix(part(m.packed(), r, from, to, owned), m.codebook(), part(m.rowScales(), r, from, to, owned), m.bits());
    }

    /** The case's attention of q (and, sketched, qs) over kv under the mask: a new tensor, or null when the kernel declines it. */
    private Tensor attend(Case c, Tensor q, Tensor qs, Kv kv, AttentionMask mask) {
        Optional<Tensor> out = switch (c.planes) {
            case F32, BF16 -> Optional.of(ops().scaledDotProductAttention(q, kv.k, kv.v, c.scale, mask));
            case AFFINE -> affine.quantizedAttention(q, kv.qk, kv.qv, c.scale, mask);
            case CODEBOOK -> codebook.codebookAttention(q, kv.ck, kv.cv, c.scale, mask);
            case SKETCHED -> codebook.codebookAttention(q, kv.ck, qs, kv.sketch, kv.cv, c.scale, mask);
        };
        return out.orElse(null);
    }

    /** The batch's mask: row r's tokens are its last {@code lengths[r]} columns; causal, and the window when set. */
    private Tensor mask(Case c, List<Tensor> owned) {
        int[] m = new int[c.rows * c.tq * c.columns];
        for (int r = 0; r < c.rows; r++) {
            for (int i = 0; i < c.tq; i++) {
                int last = c.columns - c.tq + i;
                for (int col = c.columns - c.lengths[r]; col <= last; col++) {
                    if (c.window == 0 || col > last - c.window) m[(r * c.tq + i) * c.columns + col] = 1;
                }
            }
        }
        return keep(owned, backend().fromInts(m, Shape.of(c.rows, 1, c.tq, c.columns), DType.BOOL));
    }

    private float[] run(Case c, float[] q, float[] qs, int rows, int tq, Kv kv, AttentionMask mask) {
        try (Tensor tq1 = backend().fromFloats(q, Shape.of(rows, c.hq, tq, c.d), DType.F32);
             Tensor tqs = qs == null ? null : backend().fromFloats(qs, Shape.of(rows, c.hq, tq, 64), DType.F32);
             Tensor out = attend(c, tq1, tqs, kv, mask)) {
            return out == null ? null : floats(out);
        }
    }

    /** Rows {@code [r, r + 1)} of {@code [rows, hq, t, width]} values, only the queries {@code [i0, i1)}. */
    private static float[] queries(float[] all, Case c, int t, int width, int r, int i0, int i1) {
        float[] out = new float[c.hq * (i1 - i0) * width];
        for (int h = 0; h < c.hq; h++) {
            System.arraycopy(all, ((r * c.hq + h) * t + i0) * width, out, h * (i1 - i0) * width, (i1 - i0) * width);
        }
        return out;
    }

    private void check(Case c) {
        List<Tensor> owned = new ArrayList<>();
        try {
            Kv all = batch(c, owned);
            float[] q = Gens.uniform(new int[] {c.rows, c.hq, c.tq, c.d}, c.seed + 6, 1, DType.F32).toFloats();
            float[] qs = c.planes == Planes.SKETCHED ? Gens.uniform(new int[] {c.rows, c.hq, c.tq, 64}, c.seed + 7, 1, DType.F32).toFloats() : null;
            float[] batched = run(c, q, qs, c.rows, c.tq, all, new AttentionMask.Explicit(mask(c, owned)));
            if (batched == null) return; // planes the kernel does not serve: its caller composes them
            AttentionMask causal = new AttentionMask.Causal(c.window);
            for (int r = 0; r < c.rows; r++) {
                int length = c.lengths[r];
                Kv own = part(all, r, c.columns - length, c.columns, owned);
                float[] alone = run(c, queries(q, c, c.tq, c.d, r, 0, c.tq), qs == null ? null : queries(qs, c, c.tq, 64, r, 0, c.tq), 1, c.tq,
                        own, causal);
                assertNotNull(alone, c + ": row " + r + " alone declined, though its batch was served");
                assertSameBits(c + ": row " + r + " alone and in the batch", alone, queries(batched, c, c.tq, c.dv, r, 0, c.tq));
                for (int i = 0; i < c.tq; i++) {
                    // query i alone over the keys it sees: the row's first length − tq + i + 1 tokens
                    Kv seen = part(all, r, c.columns - length, c.columns - c.tq + i + 1, owned);
                    float[] one = run(c, queries(q, c, c.tq, c.d, r, i, i + 1), qs == null ? null : queries(qs, c, c.tq, 64, r, i, i + 1), 1, 1,
                            seen, causal);
                    assertNotNull(one, c + ": a query alone declined, though its batch was served");
                    float[] within = new float[c.hq * c.dv];
                    for (int h = 0; h < c.hq; h++) System.arraycopy(alone, (h * c.tq + i) * c.dv, within, h * c.dv, c.dv);
                    assertSameBits(c + ": row " + r + " query " + i + " of " + c.tq + " alone and among the row's queries", one, within);
                }
            }
        } finally {
            for (int i = owned.size() - 1; i >= 0; i--) owned.get(i).close();
        }
    }

    @Test
    public void attentionGivesEachRowAndQueryItsBitsAloneOverEveryKindOfPlane() {
        qt(80).forAll(cases(12)).checkAssert(this::check);
    }

    @Test
    public void attentionOverLongerRowsGivesEachRowItsBitsAlone() {
        // past the kernels' key blocks and tiles, and past 512 tokens (where a split of the keys into fixed chunks would show)
        qt(12).forAll(cases(700)).checkAssert(this::check);
    }
}
