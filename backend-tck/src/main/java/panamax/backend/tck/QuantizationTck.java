package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.quicktheories.generators.SourceDSL.integers;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.core.RandomnessSource;
import panamax.api.error.InvalidParameterException;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * MLX affine quantization: {@code quantize} for every supported bits × group size on F32 and BF16
 * inputs, with groups that are random, all equal, all negative, all zero, or one outlier over noise,
 * compared exactly (packed words, scales, biases) with {@link AffineReference}; {@code dequantize}
 * and {@code quantizedMatmul} (transposed or not, batch dims on w) on random codes, compared with
 * the tolerance rule of {@link BackendTck} (dequantize may round q·scale before adding the bias;
 * quantizedMatmul's magnitude is Σ|x|·(|q·scale| + |bias| + |scale|·2^bits), as dequantized weights may cancel and a
 * kernel may multiply another affine form of the codes).
 */
public abstract class QuantizationTck extends BackendTck {

    private enum GroupKind { RANDOM, ALL_EQUAL, ALL_NEGATIVE, ZEROS, OUTLIER, LARGE }

    private record Format(int bits, int groupSize, DType dtype) {
    }

    private List<Format> formats(List<DType> dtypes) {
        List<Format> out = new ArrayList<>();
        for (int bits : backend().capabilities().quantizedBits()) {
            for (int group : backend().capabilities().groupSizes()) {
                for (DType d : dtypes) out.add(new Format(bits, group, d));
            }
        }
        out.sort(java.util.Comparator.comparingInt(Format::bits).thenComparingInt(Format::groupSize));
        return out;
    }

    private static int draw(RandomnessSource in, int lo, int hi) {
        return integers().between(lo, hi).generate(in);
    }

    /** A matrix [lead?, rows, cols] of groups of the given size, each of a random kind. */
    private static Gen<Ref> weights(int groupSize, int maxGroups) {
        return in -> {
            int[] dims = draw(in, 0, 2) == 0 ? new int[] {draw(in, 1, 2), draw(in, 1, 2), 0} : new int[] {draw(in, 1, 3), 0};
            dims[dims.length - 1] = groupSize * draw(in, 1, maxGroups);
            double[] w = new double[Ref.size(dims)];
            Gen<Double> unit = Gens.element(Gens.Spread.UNIT);
            for (int g = 0; g < w.length / groupSize; g++) {
                GroupKind kind = Gens.oneOf(List.of(GroupKind.values())).generate(in);
                double c = unit.generate(in);
                int outlier = draw(in, 0, groupSize - 1);
                for (int i = 0; i < groupSize; i++) {
                    w[g * groupSize + i] = switch (kind) {
                        case RANDOM -> unit.generate(in);
                        case ALL_EQUAL -> c;
                        case ALL_NEGATIVE -> -Math.abs(unit.generate(in)) - 0.1;
                        case ZEROS -> 0;
                        case OUTLIER -> i == outlier ? (c > 0 ? 20 : -15) : unit.generate(in) * 0.0025;
                        case LARGE -> unit.generate(in) * 2500;
                    };
                }
            }
            return new Ref(dims, w);
        };
    }

    private static int rows(Ref w) {
        return w.size() / w.dim(-1);
    }

    @Test
    public void quantizeMatchesTheMlxCpuRuleBitForBit() {
        List<Format> formats = formats(List.copyOf(supported(DType.F32, DType.BF16)));
        Gen<Object[]> cases = Gens.oneOf(formats).flatMap(f -> weights(f.groupSize, 3).map(w -> new Object[] {f, w}));
        qt(150).forAll(Gens.described(cases), Gens.layouts()).checkAssert((c, layout) -> {
            Format f = (Format) c[0];
            Ref w = ((Ref) c[1]).map(v -> Numerics.round(v, f.dtype));
            int rows = rows(w);
            int cols = w.dim(-1);
            AffineReference.Quantized expected = AffineReference.quantize(w.values(), rows, cols, f.groupSize, f.bits, f.dtype);
            int[] lead = java.util.Arrays.copyOf(w.dims(), w.rank() - 1);
            Ref packed = new Ref(References.concat(lead, cols * f.bits / 32),
                    java.util.Arrays.stream(expected.packed()).asDoubleStream().toArray());
            int[] groupDims = References.concat(lead, cols / f.groupSize);
            try (Tensor tw = input(w, f.dtype, layout); QuantizedMatrix q = ops().quantize(tw, f.groupSize, f.bits)) {
                String what = "quantize " + f + " of " + w.shape();
                assertExact(what + " packed", q.packed(), DType.U32, packed);
                assertExact(what + " scales", q.scales(), f.dtype, new Ref(groupDims, expected.scales()));
                assertExact(what + " biases", q.biases(), f.dtype, new Ref(groupDims, expected.biases()));
            }
        });
    }

    @Test
    public void quantizeRefusesUnsupportedBitsGroupSizesAndRaggedColumns() {
        try (Tensor w = ops().zeros(Shape.of(2, 96), DType.F32)) {
            assertThrows(InvalidParameterException.class, () -> ops().quantize(w, 32, 7));
            assertThrows(InvalidParameterException.class, () -> ops().quantize(w, 32, 1));
            assertThrows(InvalidParameterException.class, () -> ops().quantize(w, 16, 4));
            assertThrows(InvalidParameterException.class, () -> ops().quantize(w, 64, 4)); // 96 is not a multiple of 64
        }
    }

    /** Random codes with random scales (either sign) and biases, as a backend-independent quantized matrix. */
    private record Codes(int[] dims, int[] codes, double[] scales, double[] biases, Format format) {
        @Override
        public String toString() {
            return "Codes[dims=" + java.util.Arrays.toString(dims) + ", " + format + ", codes="
                    + java.util.Arrays.toString(java.util.Arrays.copyOf(codes, Math.min(16, codes.length))) + "...]";
        }

        int rows() {
            return Ref.size(dims) / dims[dims.length - 1];
        }

        int cols() {
            return dims[dims.length - 1];
        }

        Ref dequantized() {
            return new Ref(dims, AffineReference.dequantize(codes, scales, biases, rows(), cols(), format.groupSize));
        }

        Ref termSizes() {
            return new Ref(dims, AffineReference.productMagnitude(codes, scales, biases, rows(), cols(), format.groupSize, format.bits));
        }
    }

    private static Gen<Codes> codes(Format f, int[] leadAndRows, int groups) {
        return in -> {
            int[] dims = References.concat(leadAndRows, groups * f.groupSize);
            int n = Ref.size(dims);
            int[] codes = new int[n];
            for (int i = 0; i < n; i++) codes[i] = draw(in, 0, (1 << f.bits) - 1);
            int g = n / f.groupSize;
            double[] scales = new double[g];
            double[] biases = new double[g];
            for (int i = 0; i < g; i++) {
                scales[i] = Numerics.round((draw(in, 0, 1) * 2 - 1) * draw(in, 1, 1000) * 1e-4, f.dtype);
                biases[i] = Numerics.round(draw(in, -500, 500) * 1e-3, f.dtype);
            }
            return new Codes(dims, codes, scales, biases, f);
        };
    }

    private QuantizedMatrix matrix(Codes c) {
        int[] lead = java.util.Arrays.copyOf(c.dims, c.dims.length - 1);
        int[] packed = AffineReference.pack(c.codes, c.rows(), c.cols(), c.format.bits);
        int[] groupDims = References.concat(lead, c.cols() / c.format.groupSize);
        Tensor p = backend().fromInts(packed, new Shape(References.concat(lead, c.cols() * c.format.bits / 32)), DType.U32);
        Tensor s = input(new Ref(groupDims, c.scales), c.format.dtype);
        Tensor b = input(new Ref(groupDims, c.biases), c.format.dtype);
        return new QuantizedMatrix(p, s, b, c.format.groupSize, c.format.bits);
    }

    @Test
    public void dequantizeComputesCodeTimesScalePlusBias() {
        List<Format> formats = formats(List.copyOf(supported(DType.F32, DType.BF16)));
        Gen<Codes> cases = Gens.oneOf(formats).flatMap(f -> in -> codes(f,
                draw(in, 0, 1) == 0 ? new int[] {draw(in, 1, 3)} : new int[] {2, draw(in, 1, 2)}, draw(in, 1, 2)).generate(in));
        qt(80).forAll(cases).checkAssert(c -> {
            Ref expected = c.dequantized();
            double[] mag = new double[expected.size()];
            for (int i = 0; i < mag.length; i++) {
                int g = i / c.format.groupSize;
                double qs = c.codes[i] * c.scales[g];
                // MLX rounds q·s to the scales dtype before adding the bias: allow that rounding too
                mag[i] = Math.abs(qs) + Math.abs(c.biases[g]) + Numerics.ulp(qs, c.format.dtype) / RTOL;
            }
            try (QuantizedMatrix q = matrix(c); Tensor r = ops().dequantize(q)) {
                assertClose("dequantize " + c, r, c.format.dtype, expected, mag);
            }
        });
    }

    private record MatmulCase(Ref x, Codes w, boolean transpose, DType xType, InputLayout layout) {
    }

    private static Gen<MatmulCase> matmulCases(List<Format> formats, List<DType> xTypes) {
        return in -> {
            Format f = Gens.oneOf(formats).generate(in);
            boolean transpose = draw(in, 0, 1) == 0;
            boolean batched = draw(in, 0, 2) == 0;
            int bw = draw(in, 1, 3);
            int m = draw(in, 1, 4);
            int free = Gens.positiveDim(transpose ? 40 : 8).generate(in);
            int groups = draw(in, 1, 2);
            // transposed: w is [N, K] quantized along K; otherwise w is [K, N] quantized along N
            Codes w = codes(f, batched ? new int[] {bw, free} : new int[] {free}, groups).generate(in);
            int k = transpose ? groups * f.groupSize : free;
            int[] xDims = batched ? new int[] {bw, m, k}
                    : Gens.oneOf(List.of(new int[] {k}, new int[] {m, k}, new int[] {2, m, k}, new int[] {2, 1, m, k})).generate(in);
            DType xType = Gens.oneOf(xTypes).generate(in);
            Ref x = Gens.values(xDims, Gens.element(Gens.Spread.UNIT), xType).generate(in);
            return new MatmulCase(x, w, transpose, xType, Gens.layouts().generate(in));
        };
    }

    @Test
    public void quantizedMatmulMatchesTheDequantizedProductInFloat64() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(150).forAll(matmulCases(formats(types), types)).checkAssert(c -> {
            Ref w = c.w.dequantized();
            Ref terms = c.w.termSizes();
            int[] swap = References.swapLast(w.rank());
            Ref x2 = c.x.rank() == 1 ? c.x.reshape(1, c.x.dim(0)) : c.x;
            Ref product = References.matmul(x2, c.transpose ? w.transpose(swap) : w).value();
            // magnitude Σ|x|·(|q·s| + |b| + |s|·2^bits): dequantized weights may cancel to nearly 0 in f32, and a kernel
            // may multiply another affine form of the codes (AffineReference.productMagnitude)
            double[] mag = References.matmul(x2.map(Math::abs), c.transpose ? terms.transpose(swap) : terms).value().values();
            Expected e = new Expected(c.x.rank() == 1 ? product.reshape(product.dim(-1)) : product, mag);
            DType result = Numerics.promote(c.xType, c.w.format.dtype);
            try (Tensor tx = input(c.x, c.xType, c.layout); QuantizedMatrix q = matrix(c.w);
                 Tensor r = ops().quantizedMatmul(tx, q, c.transpose)) {
                assertClose("quantizedMatmul transpose=" + c.transpose + " x " + c.xType + c.x.shape() + " w " + c.w, r, result, e);
            }
        });
    }

    @Test
    public void quantizedMatmulsGiveEachProductsBitsAlone() {
        // a mixture's routed experts: one x (a decode row, or a few prefill rows) against several matrices of each
        // format the backend offers, with a product of x·w (not transposed) among them
        List<Format> formats = formats(List.copyOf(supported(DType.F32, DType.BF16)));
        qt(formats.size() * 2).forAll(Gens.oneOf(formats), integers().between(1, 4), integers().between(1, 40), integers().between(1, 5))
                .checkAssert((f, groups, n, m) -> {
                    int k = groups * f.groupSize;
                    List<AutoCloseable> owned = new ArrayList<>();
                    try {
                        Tensor x = input(Gens.uniform(new int[] {m, k}, 13L * k + m, 1, DType.F32), DType.F32);
                        owned.add(x);
                        List<Tensor> xs = new ArrayList<>();
                        List<QuantizedMatrix> ws = new ArrayList<>();
                        for (int i = 0; i < 3; i++) {
                            try (Tensor w = input(Gens.uniform(new int[] {n + 5 * i, k}, 3L * i + n, 0.5, f.dtype), f.dtype)) {
                                QuantizedMatrix q = ops().quantize(w, f.groupSize, f.bits);
                                owned.add(q);
                                ws.add(q);
                                xs.add(x);
                            }
                        }
                        List<Tensor> together = ops().quantizedMatmuls(xs, ws, true);
                        owned.addAll(together);
                        for (int i = 0; i < xs.size(); i++) {
                            Tensor alone = ops().quantizedMatmul(xs.get(i), ws.get(i), true);
                            owned.add(alone);
                            assertSameBits("quantizedMatmuls product " + i + " (" + f + ", x [" + m + ", " + k + "]) against quantizedMatmul alone",
                                    alone, together.get(i));
                        }
                        try (Tensor square = input(Gens.uniform(new int[] {k, k}, 11L * k, 0.5, f.dtype), f.dtype)) {
                            QuantizedMatrix q = ops().quantize(square, f.groupSize, f.bits);
                            owned.add(q);
                            List<Tensor> plain = ops().quantizedMatmuls(List.of(x, x), List.of(q, q), false);
                            owned.addAll(plain);
                            Tensor alone = ops().quantizedMatmul(x, q, false);
                            owned.add(alone);
                            assertSameBits("quantizedMatmuls x·w (" + f + ") against quantizedMatmul alone", alone, plain.get(0));
                        }
                    } finally {
                        for (AutoCloseable c : owned) {
                            try {
                                c.close();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        }
                    }
                });
        try (Tensor x = ops().zeros(Shape.of(1, 32), DType.F32)) {
            assertThrows(IllegalArgumentException.class, () -> ops().quantizedMatmuls(List.of(x), List.of(), true));
        }
    }
}
