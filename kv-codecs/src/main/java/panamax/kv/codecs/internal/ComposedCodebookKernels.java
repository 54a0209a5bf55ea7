package panamax.kv.codecs.internal;

import java.util.Arrays;
import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;
import panamax.api.tensor.kernel.CodebookKernels;
import panamax.api.tensor.kernel.CodebookMatrix;
import panamax.api.tensor.kernel.SketchedCodes;

/**
 * {@link CodebookKernels} composed from the core {@link Ops}, for backends that offer no codebook
 * kernels: the same values, slowly (they materialize the dense and rotated rows a fused kernel never
 * would). Constants are created per call from host arrays. Borrows its ops; thread-safe.
 */
public final class ComposedCodebookKernels implements CodebookKernels {
    private final Ops ops;

    public ComposedCodebookKernels(Ops ops) {
        this.ops = ops;
    }

    private static Shape shape(int[] lead, int... tail) {
        int[] d = Arrays.copyOf(lead, lead.length + tail.length);
        System.arraycopy(tail, 0, d, lead.length, tail.length);
        return new Shape(d);
    }

    /** The code values of every entry: F32 {@code [..., rows, cols]}, read through {@link Ops#dequantize} with unit scales. */
    private Tensor codes(TensorScope s, CodebookMatrix w) {
        Backend backend = w.packed().backend();
        int width = w.bits() == 1 ? 2 : w.bits();          // MLX has no 1-bit format: read bit pairs
        int columns = w.bits() == 1 ? w.cols() / 2 : w.cols();
        int[] lead = Arrays.copyOf(w.packed().shape().dims(), w.packed().rank() - 1);
        Shape groups = shape(lead, columns / 32);
        Tensor one = s.add(backend.fromFloats(new float[] {1f}, Shape.of(1), DType.F32));
        Tensor zero = s.add(backend.fromFloats(new float[] {0f}, Shape.of(1), DType.F32));
        // borrows packed: the QuantizedMatrix is never closed
        var matrix = new QuantizedMatrix(w.packed(), s.add(ops.broadcastTo(one, groups)), s.add(ops.broadcastTo(zero, groups)), 32, width);
        Tensor codes = s.add(ops.dequantize(matrix));
        if (w.bits() != 1) return codes;
        // pair p = b0 + 2·b1: b1 = trunc(p/2) (truncation is floor for p ≥ 0), b0 = p − 2·b1
        Tensor high = s.add(ops.astype(s.add(ops.astype(s.add(ops.mul(codes, 0.5)), DType.I32)), DType.F32));
        Tensor low = s.add(ops.sub(codes, s.add(ops.mul(high, 2.0))));
        Tensor pairs = s.add(ops.concat(List.of(s.add(ops.reshape(low, shape(lead, columns, 1))),
                s.add(ops.reshape(high, shape(lead, columns, 1)))), -1));
        return s.add(ops.reshape(pairs, shape(lead, w.cols())));
    }

    @Override
    public Tensor codebookDequantize(CodebookMatrix w) {
        try (TensorScope s = new TensorScope()) {
            Tensor index = s.add(ops.astype(codes(s, w), DType.I32));
            Tensor values = s.add(ops.take(w.codebook(), index, 0));
            return s.keep(w.rowScales() == null ? values : s.add(ops.mul(values, w.rowScales())));
        }
    }

    @Override
    public Tensor codebookMatmul(Tensor x, CodebookMatrix w, boolean transpose) {
        try (TensorScope s = new TensorScope()) {
            Tensor dense = s.add(codebookDequantize(w));
            if (!transpose) return s.keep(ops.matmul(x, dense));
            int[] axes = new int[dense.rank()];
            for (int i = 0; i < axes.length; i++) axes[i] = i;
            axes[axes.length - 1] = axes.length - 2;
            axes[axes.length - 2] = axes.length - 1;
            return s.keep(ops.matmul(x, s.add(ops.transpose(dense, axes))));
        }
    }

    @Override
    public CodebookMatrix codebookQuantize(Tensor x, Tensor codebook, Tensor boundaries, int bits) {
        int cols = x.dim(-1);
        if (boundaries.rank() != 1 || boundaries.dim(0) != (1 << bits) - 1) {
            throw new IllegalArgumentException("boundaries: expected [" + ((1 << bits) - 1) + "] for " + bits + " bits, found " + boundaries.shape());
        }
        if (cols % (bits == 1 ? 64 : 32) != 0) {
            throw new IllegalArgumentException("codebookQuantize: the last axis of x " + x.shape() + " must be a multiple of " + (bits == 1 ? 64 : 32));
        }
        Backend backend = x.backend();
        int[] lead = Arrays.copyOf(x.shape().dims(), x.rank() - 1);
        int words = cols * bits / 32;
        try (TensorScope s = new TensorScope()) {
            Tensor xf = s.add(ops.astype(x, DType.F32));
            Tensor norm = s.add(ops.unary(UnaryOp.SQRT, s.add(ops.sum(s.add(ops.unary(UnaryOp.SQUARE, xf)), -1, true))));
            Tensor unit = s.add(ops.div(xf, s.add(ops.binary(BinaryOp.MAXIMUM, norm, Float.MIN_NORMAL))));
            // binary search over the sorted boundaries, top bit first: round k decides bit k of the code
            Tensor code = s.add(ops.zeros(unit.shape(), DType.F32));
            Tensor[] bitPlanes = new Tensor[bits];
            for (int k = bits - 1; k >= 0; k--) {
                Tensor probe = s.add(ops.astype(s.add(ops.add(code, (1 << k) - 1)), DType.I32));
                Tensor threshold = s.add(ops.take(boundaries, probe, 0));
                Tensor above = s.add(ops.astype(s.add(ops.compare(Comparison.GREATER, unit, threshold)), DType.F32));
                bitPlanes[k] = s.add(ops.reshape(above, shape(lead, cols, 1)));
                code = s.add(ops.add(code, s.add(ops.mul(above, 1 << k))));
            }
            // the LSB-first stream as 16-bit halves (exact in f32), joined as lo + hi·65536 in U32
            Tensor stream = s.add(ops.reshape(s.add(ops.concat(Arrays.asList(bitPlanes), -1)), shape(lead, words, 2, 16)));
            float[] powers = new float[16];
            for (int i = 0; i < 16; i++) powers[i] = 1 << i;
            Tensor weights = s.add(backend.fromFloats(powers, Shape.of(16), DType.F32));
            Tensor halves = s.add(ops.astype(s.add(ops.sum(s.add(ops.mul(stream, weights)), -1, false)), DType.U32));
            Tensor shift = s.add(backend.fromInts(new int[] {1 << 16}, Shape.of(1), DType.U32));
            Tensor word = s.add(ops.add(s.add(ops.slice(halves, -1, 0, 1)), s.add(ops.mul(s.add(ops.slice(halves, -1, 1, 2)), shift))));
            Tensor packed = ops.reshape(word, shape(lead, words));
            return new CodebookMatrix(packed, codebook, s.keep(norm), bits);
        }
    }

    @Override
    public Tensor hadamardRotate(Tensor x, Tensor signs, boolean inverse) {
        int n = x.dim(-1);
        if (Integer.bitCount(n) != 1) throw new IllegalArgumentException("hadamardRotate: the last axis of x " + x.shape() + " must be a power of two");
        float[] h = new float[n * n];
        float norm = (float) (1 / Math.sqrt(n));
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) h[i * n + j] = Integer.bitCount(i & j) % 2 == 0 ? norm : -norm;
        }
        try (TensorScope s = new TensorScope()) {
            Tensor matrix = s.add(x.backend().fromFloats(h, Shape.of(n, n), DType.F32));
            Tensor xf = s.add(ops.astype(x, DType.F32));
            // H is symmetric: the row vector times H is (H·x)ᵀ
            if (!inverse) return s.keep(ops.matmul(s.add(ops.mul(xf, signs)), matrix));
            return s.keep(ops.mul(s.add(ops.matmul(xf, matrix)), signs));
        }
    }

    @Override
    public CodebookMatrix codebookQuantizeRotated(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits) {
        try (Tensor rotated = hadamardRotate(x, signs, false)) {
            return codebookQuantize(rotated, codebook, boundaries, bits);
        }
    }

    @Override
    public Tensor codebookDequantizeRotated(CodebookMatrix w, Tensor signs, DType dtype) {
        try (Tensor values = codebookDequantize(w); Tensor rotated = hadamardRotate(values, signs, true)) {
            return ops.astype(rotated, dtype);
        }
    }

    @Override
    public SketchedCodes codebookQuantizeRotatedSketched(Tensor x, Tensor signs, Tensor codebook, Tensor boundaries, int bits,
                                          List<Tensor> sketchSigns) {
        checkSketch(x.dim(-1), sketchSigns, "codebookQuantizeRotatedSketched");
        Backend backend = x.backend();
        try (TensorScope s = new TensorScope()) {
            Tensor rotated = s.add(hadamardRotate(x, signs, false));
            Tensor norm = s.add(ops.unary(UnaryOp.SQRT, s.add(ops.sum(s.add(ops.unary(UnaryOp.SQUARE, rotated)), -1, true))));
            Tensor unit = s.add(ops.div(rotated, s.add(ops.binary(BinaryOp.MAXIMUM, norm, Float.MIN_NORMAL))));
            Tensor codes = null;
            Tensor residual = unit;
            if (bits > 0) {
                CodebookMatrix q = codebookQuantize(rotated, codebook, boundaries, bits);
                codes = s.add(q.packed());
                s.add(q.rowScales());
                Tensor approx = s.add(codebookDequantize(new CodebookMatrix(q.packed(), codebook, null, bits)));
                residual = s.add(ops.sub(unit, approx));
            }
            Tensor unitResidualNorm = s.add(ops.unary(UnaryOp.SQRT, s.add(ops.sum(s.add(ops.unary(UnaryOp.SQUARE, residual)), -1, true))));
            Tensor residualNorm = s.add(ops.mul(unitResidualNorm, norm));
            Tensor projected = residual;
            for (Tensor d : sketchSigns) projected = s.add(hadamardRotate(projected, d, false));
            Tensor zero = s.add(backend.fromFloats(new float[] {0f}, Shape.of(1), DType.F32));
            Tensor signBook = s.add(backend.fromFloats(new float[] {-1f, 1f}, Shape.of(2), DType.F32));
            CodebookMatrix sketch = codebookQuantize(projected, signBook, zero, 1);
            s.add(sketch.rowScales());
            Tensor packedSketch = s.add(sketch.packed());
            return new SketchedCodes(codes == null ? null : s.keep(codes), s.keep(norm), s.keep(packedSketch), s.keep(residualNorm));
        }
    }

    @Override
    public Tensor codebookDequantizeRotatedSketched(CodebookMatrix w, CodebookMatrix sketch, List<Tensor> sketchSigns, Tensor signs, DType dtype) {
        checkSketch(sketch.cols(), sketchSigns, "codebookDequantizeRotatedSketched");
        if (sketch.bits() != 1) throw new IllegalArgumentException("codebookDequantizeRotatedSketched: expected a 1-bit sketch, found " + sketch.bits() + " bits");
        if (w != null && w.cols() != sketch.cols()) {
            throw new IllegalArgumentException("codebookDequantizeRotatedSketched: codes of rows of " + w.cols() + " and a sketch of rows of "
                    + sketch.cols() + " do not match");
        }
        try (TensorScope s = new TensorScope()) {
            Tensor t = s.add(codebookDequantize(sketch));
            for (int k = sketchSigns.size() - 1; k >= 0; k--) t = s.add(hadamardRotate(t, sketchSigns.get(k), true));
            if (w != null) t = s.add(ops.add(s.add(codebookDequantize(w)), t));
            Tensor x = s.add(hadamardRotate(t, signs, true));
            return s.keep(ops.astype(x, dtype));
        }
    }

    private static void checkSketch(int n, List<Tensor> sketchSigns, String op) {
        if (sketchSigns == null || sketchSigns.isEmpty()) throw new IllegalArgumentException(op + ": expected one or more sketch sign tensors, found none");
        if (Integer.bitCount(n) != 1 || n < 64) throw new IllegalArgumentException(op + ": rows of " + n + " are not a power of two of at least 64");
    }
}
