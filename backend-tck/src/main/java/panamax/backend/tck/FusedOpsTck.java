package panamax.backend.tck;

import static org.quicktheories.generators.SourceDSL.integers;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.DType;
import panamax.api.tensor.RopeSpec;
import panamax.api.tensor.Tensor;

/**
 * Fused ops: rmsNorm, layerNorm, softmax and rope, on non-contiguous inputs of rank 1 to 4, F32,
 * BF16 and F16. RoPE covers per-row and shared offsets, traditional and half rotation, partial
 * dims, linear scaling and explicit frequencies. Magnitudes come from {@link FusedReferences}; the
 * tolerance rule is in {@link BackendTck}.
 */
public abstract class FusedOpsTck extends BackendTck {

    private record NormCase(Ref x, Ref weight, Ref bias, double eps, InputLayout layout) {
    }

    private List<DType> floatingTypes() {
        return List.copyOf(supported(DType.F32, DType.BF16, DType.F16));
    }

    private static Gen<NormCase> normCases() {
        return in -> {
            int[] dims = Gens.nonEmptyDims(1, 4, 5).generate(in);
            dims[dims.length - 1] = integers().between(1, 40).generate(in);
            int d = dims[dims.length - 1];
            double eps = Gens.oneOf(List.of(1e-6, 1e-5, 1e-2)).generate(in);
            return new NormCase(Gens.values(dims, DType.F32).generate(in),
                    Gens.values(new int[] {d}, Gens.element(Gens.Spread.UNIT), DType.F32).generate(in),
                    Gens.values(new int[] {d}, Gens.element(Gens.Spread.UNIT), DType.F32).generate(in),
                    eps, Gens.layouts().generate(in));
        };
    }

    private static Ref rounded(Ref r, DType dtype) {
        return r.map(v -> Numerics.round(dtype == DType.F16 ? Math.max(-100, Math.min(100, v)) : v, dtype));
    }

    @Test
    public void rmsNormScalesEachRowByItsRootMeanSquare() {
        qt(100).forAll(normCases(), Gens.oneOf(floatingTypes())).checkAssert((c, dtype) -> {
            Ref x = rounded(c.x, dtype);
            Ref w = rounded(c.weight, dtype);
            try (Tensor tx = input(x, dtype, c.layout); Tensor tw = input(w, dtype); Tensor r = ops().rmsNorm(tx, tw, c.eps)) {
                assertClose("rmsNorm of " + x.shape() + " eps " + c.eps, r, dtype, FusedReferences.rmsNorm(x, w, c.eps));
            }
        });
    }

    @Test
    public void layerNormCentersAndScalesEachRow() {
        qt(100).forAll(normCases(), Gens.oneOf(floatingTypes())).checkAssert((c, dtype) -> {
            Ref x = rounded(c.x, dtype);
            Ref w = rounded(c.weight, dtype);
            Ref b = rounded(c.bias, dtype);
            try (Tensor tx = input(x, dtype, c.layout); Tensor tw = input(w, dtype); Tensor tb = input(b, dtype, c.layout);
                 Tensor r = ops().layerNorm(tx, tw, tb, c.eps)) {
                assertClose("layerNorm of " + x.shape() + " eps " + c.eps, r, dtype, FusedReferences.layerNorm(x, w, b, c.eps));
            }
        });
    }

    @Test
    public void softmaxAlongAnyAxisSumsToOne() {
        Gen<Object[]> cases = Gens.dims(1, 4, 6).flatMap(d -> integers().between(0, d.length - 1).flatMap(axis ->
                Gens.values(d, DType.F32).map(x -> new Object[] {x, axis})));
        qt(100).forAll(Gens.described(cases), Gens.oneOf(floatingTypes()), Gens.layouts(), Generate.booleans())
                .checkAssert((c, dtype, layout, negative) -> {
                    Ref x = rounded((Ref) c[0], dtype);
                    int axis = (int) c[1];
                    try (Tensor t = input(x, dtype, layout); Tensor r = ops().softmax(t, negative ? axis - x.rank() : axis)) {
                        assertClose("softmax over axis " + axis + " of " + x.shape(), r, dtype, FusedReferences.softmax(x, axis));
                    }
                });
    }

    @Test
    public void softmaxGivesMinusInfinityEntriesZeroWeight() {
        qt(30).forAll(Gens.tensors(Gens.nonEmptyDims(1, 3, 6), DType.F32), integers().between(0, 1000)).checkAssert((x0, seed) -> {
            int n = x0.dim(-1);
            // blank out some entries of each row, never all of them
            Ref x = new Ref(x0.dims(), x0.values().clone());
            for (int i = 0; i < x.size(); i++) {
                if (i % n != seed % n && (i * 7 + seed) % 3 == 0) x.values()[i] = Double.NEGATIVE_INFINITY;
            }
            try (Tensor t = input(x, DType.F32); Tensor r = ops().softmax(t, -1)) {
                assertClose("softmax with -inf entries of " + x, r, DType.F32, FusedReferences.softmax(x, x.rank() - 1));
            }
        });
    }

    private record RopeCase(Ref x, RopeSpec spec, int[] offsets, InputLayout layout) {
        @Override
        public String toString() {
            return "RopeCase[x=" + x + ", dims=" + spec.dims() + ", base=" + spec.base() + ", traditional=" + spec.traditional()
                    + ", scale=" + spec.scale() + ", frequencies=" + spec.frequencies().map(java.util.Arrays::toString)
                    + ", offsets=" + java.util.Arrays.toString(offsets) + ", layout=" + layout + "]";
        }
    }

    private static Gen<RopeCase> ropeCases() {
        return in -> {
            int b = integers().between(1, 3).generate(in);
            int h = integers().between(1, 3).generate(in);
            int t = Gens.dim(5).generate(in);
            int d = 2 * integers().between(1, 8).generate(in);
            int dims = 2 * integers().between(1, d / 2).generate(in);
            boolean traditional = Generate.booleans().generate(in);
            double base = Gens.oneOf(List.of(10000.0, 500000.0, 10.0)).generate(in);
            double scale = Gens.oneOf(List.of(1.0, 0.25, 2.0)).generate(in);
            Optional<float[]> freqs = Optional.empty();
            if (integers().between(0, 2).generate(in) == 0) {
                float[] f = new float[dims / 2];
                for (int i = 0; i < f.length; i++) f[i] = (float) (integers().between(1, 1000).generate(in) * 1e-3);
                freqs = Optional.of(f);
            }
            boolean shared = integers().between(0, 3).generate(in) == 0;
            int[] offsets = new int[shared ? 1 : b];
            for (int i = 0; i < offsets.length; i++) offsets[i] = integers().between(0, 2000).generate(in);
            return new RopeCase(Gens.values(new int[] {b, h, t, d}, Gens.element(Gens.Spread.UNIT), DType.F32).generate(in),
                    new RopeSpec(dims, base, traditional, scale, freqs), offsets, Gens.layouts().generate(in));
        };
    }

    @Test
    public void ropeRotatesEachRowFromItsOwnOffset() {
        List<DType> types = List.copyOf(supported(DType.F32, DType.BF16));
        qt(150).forAll(ropeCases(), Gens.oneOf(types)).checkAssert((c, dtype) -> {
            Ref x = rounded(c.x, dtype);
            Ref offsets = new Ref(new int[] {c.offsets.length}, java.util.Arrays.stream(c.offsets).asDoubleStream().toArray());
            try (Tensor tx = input(x, dtype, c.layout); Tensor to = input(offsets, DType.I32); Tensor r = ops().rope(tx, c.spec, to)) {
                assertClose(c.toString(), r, dtype, FusedReferences.rope(x, c.spec, c.offsets));
            }
        });
    }
}
