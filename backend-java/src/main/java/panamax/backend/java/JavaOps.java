package panamax.backend.java;

import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.BinaryOp;
import panamax.api.tensor.Comparison;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Reduction;
import panamax.api.tensor.RopeSpec;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.TopK;
import panamax.api.tensor.UnaryOp;

/**
 * The core {@link Ops} surface of the java backend: checks that arguments are open tensors of this
 * backend, then delegates to the op families. The optional kernels are {@link JavaCodebookKernels}
 * and {@link JavaKvAttention}. Inputs are borrowed, results owned by the caller.
 * Thread-safe.
 */
final class JavaOps implements Ops {
    private final JavaBackend backend;
    private final ViewOps views;
    private final GatherOps gather;
    private final ElementwiseOps elementwise;
    private final ReduceOps reduce;
    private final MatmulOps matmul;
    private final NormOps norm;
    private final AttentionOps attention;
    private final QuantOps quant;

    JavaOps(JavaBackend backend) {
        this.backend = backend;
        this.views = new ViewOps(backend);
        this.gather = new GatherOps(backend, views);
        this.elementwise = new ElementwiseOps(backend);
        this.reduce = new ReduceOps(backend);
        this.matmul = new MatmulOps(backend);
        this.norm = new NormOps(backend);
        this.attention = new AttentionOps(backend);
        this.quant = new QuantOps(backend, views);
    }

    ViewOps views() {
        return views;
    }

    QuantOps quant() {
        return quant;
    }

    private JavaTensor t(Tensor x, String name) {
        return backend.check(x, name);
    }

    private List<JavaTensor> tensors(List<Tensor> xs, String name) {
        List<JavaTensor> out = new ArrayList<>(xs.size());
        for (int i = 0; i < xs.size(); i++) out.add(t(xs.get(i), name + "[" + i + "]"));
        return out;
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        return backend.allocateZeroed(shape.dims(), dtype);
    }

    @Override
    public Tensor full(Shape shape, double value, DType dtype) {
        JavaTensor out = backend.allocate(shape.dims(), dtype);
        long n = out.elementCount();
        var s = out.segment();
        // write one chunk element by element, then copy it over the rest
        int first = (int) Math.min(n, StridedLoop.CHUNK);
        for (int i = 0; i < first; i++) {
            if (dtype.isFloating()) RowIo.setFloat(s, dtype, i, (float) value);
            else RowIo.setLong(s, dtype, i, DTypes.fromFloat(value, dtype));
        }
        long chunkBytes = (long) first * dtype.byteSize();
        for (long at = chunkBytes; at < s.byteSize(); at += chunkBytes) {
            java.lang.foreign.MemorySegment.copy(s, 0, s, at, Math.min(chunkBytes, s.byteSize() - at));
        }
        return out;
    }

    @Override
    public Tensor arange(int start, int stop, DType dtype) {
        int n = Math.max(0, stop - start);
        JavaTensor out = backend.allocate(new int[] {n}, dtype);
        var s = out.segment();
        for (int i = 0; i < n; i++) {
            if (dtype.isFloating()) RowIo.setFloat(s, dtype, i, start + i);
            else RowIo.setLong(s, dtype, i, DTypes.wrap(start + i, dtype));
        }
        return out;
    }

    @Override
    public Tensor reshape(Tensor x, Shape shape) {
        return views.reshape(t(x, "x"), shape);
    }

    @Override
    public Tensor transpose(Tensor x, int... axes) {
        return views.transpose(t(x, "x"), axes);
    }

    @Override
    public Tensor slice(Tensor x, int axis, int start, int end) {
        return views.slice(t(x, "x"), axis, start, end);
    }

    @Override
    public Tensor broadcastTo(Tensor x, Shape shape) {
        return views.broadcastTo(t(x, "x"), shape);
    }

    @Override
    public Tensor copy(Tensor x) {
        return views.copy(t(x, "x"));
    }

    @Override
    public Tensor concat(List<Tensor> xs, int axis) {
        List<JavaTensor> list = new ArrayList<>(xs.size());
        for (Tensor x : xs) list.add(t(x, "xs"));
        return views.concat(list, axis);
    }

    @Override
    public Tensor take(Tensor x, Tensor indices, int axis) {
        return gather.take(t(x, "x"), t(indices, "indices"), axis);
    }

    @Override
    public Tensor takeAlongAxis(Tensor x, Tensor indices, int axis) {
        return gather.takeAlongAxis(t(x, "x"), t(indices, "indices"), axis);
    }

    @Override
    public Tensor putAlongAxis(Tensor x, Tensor indices, Tensor values, int axis) {
        return gather.putAlongAxis(t(x, "x"), t(indices, "indices"), t(values, "values"), axis);
    }

    @Override
    public Tensor sliceUpdate(Tensor x, Tensor update, int... starts) {
        return gather.sliceUpdate(t(x, "x"), t(update, "update"), starts);
    }

    @Override
    public void writeSlice(Tensor target, Tensor update, int... starts) {
        gather.writeSlice(t(target, "target"), t(update, "update"), starts, "writeSlice");
    }

    @Override
    public void writeAlongAxis(Tensor target, Tensor indices, Tensor values, int axis) {
        gather.writeAlongAxis(t(target, "target"), t(indices, "indices"), t(values, "values"), axis, "writeAlongAxis");
    }

    @Override
    public Tensor astype(Tensor x, DType dtype) {
        return views.astype(t(x, "x"), dtype);
    }

    @Override
    public Tensor unary(UnaryOp op, Tensor x) {
        return elementwise.unary(op, t(x, "x"));
    }

    @Override
    public Tensor binary(BinaryOp op, Tensor a, Tensor b) {
        return elementwise.binary(op, t(a, "a"), t(b, "b"));
    }

    @Override
    public Tensor binary(BinaryOp op, Tensor x, double scalar) {
        return elementwise.binaryScalar(op, t(x, "x"), scalar);
    }

    @Override
    public Tensor compare(Comparison op, Tensor a, Tensor b) {
        return elementwise.compare(op, t(a, "a"), t(b, "b"));
    }

    @Override
    public Tensor where(Tensor cond, Tensor a, Tensor b) {
        return elementwise.where(t(cond, "cond"), t(a, "a"), t(b, "b"));
    }

    @Override
    public Tensor reduce(Reduction op, Tensor x, int axis, boolean keepDims) {
        return reduce.reduce(op, t(x, "x"), axis, keepDims);
    }

    @Override
    public Tensor argmax(Tensor x, int axis, boolean keepDims) {
        return reduce.argmax(t(x, "x"), axis, keepDims);
    }

    @Override
    public TopK topK(Tensor x, int k) {
        return reduce.topK(t(x, "x"), k);
    }

    @Override
    public Tensor matmul(Tensor a, Tensor b) {
        return matmul.matmul(t(a, "a"), t(b, "b"));
    }

    @Override
    public List<Tensor> matmuls(List<Tensor> a, List<Tensor> b) {
        return List.copyOf(matmul.matmuls(tensors(a, "a"), tensors(b, "b")));
    }

    @Override
    public Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        return norm.rmsNorm(t(x, "x"), weight == null ? null : t(weight, "weight"), eps);
    }

    @Override
    public Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        return norm.layerNorm(t(x, "x"), weight == null ? null : t(weight, "weight"), bias == null ? null : t(bias, "bias"), eps);
    }

    @Override
    public Tensor rope(Tensor x, RopeSpec spec, Tensor offsets) {
        return norm.rope(t(x, "x"), spec, t(offsets, "offsets"));
    }

    @Override
    public Tensor softmax(Tensor x, int axis) {
        return reduce.softmax(t(x, "x"), axis);
    }

    @Override
    public Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, double scale, AttentionMask mask) {
        if (mask instanceof AttentionMask.Explicit e) t(e.mask(), "mask");
        return attention.attention(t(q, "q"), t(k, "k"), t(v, "v"), scale, mask == null ? AttentionMask.NONE : mask);
    }

    @Override
    public QuantizedMatrix quantize(Tensor w, int groupSize, int bits) {
        return quant.quantize(t(w, "w"), groupSize, bits);
    }

    @Override
    public Tensor dequantize(QuantizedMatrix w) {
        return quant.dequantize(w);
    }

    @Override
    public Tensor quantizedMatmul(Tensor x, QuantizedMatrix w, boolean transpose) {
        return quant.quantizedMatmul(t(x, "x"), w, transpose);
    }

    @Override
    public List<Tensor> quantizedMatmuls(List<Tensor> x, List<QuantizedMatrix> w, boolean transpose) {
        return List.copyOf(quant.quantizedMatmuls(tensors(x, "x"), w, transpose));
    }
}
