package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.MemorySegment;
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
 * The {@link Ops} surface of the MLX backend: checks that arguments are open tensors of this
 * backend, then delegates to the op families. Ops only build MLX's lazy graph; values are computed
 * when the backend evaluates or reads a tensor. Inputs are borrowed, results owned by the caller.
 * Thread-safe.
 */
final class MlxOps extends OpFamily implements Ops {
    private final ViewOps views;
    private final GatherOps gather;
    private final ElementwiseOps elementwise;
    private final ReduceOps reduce;
    private final FusedOps fused;
    private final QuantOps quant;

    MlxOps(MlxBackend backend) {
        super(backend);
        this.views = new ViewOps(backend);
        this.gather = new GatherOps(backend);
        this.elementwise = new ElementwiseOps(backend);
        this.reduce = new ReduceOps(backend);
        this.fused = new FusedOps(backend);
        this.quant = new QuantOps(backend);
    }

    private MlxTensor t(Tensor x, String name) {
        return backend.check(x, name);
    }

    @Override
    public Tensor zeros(Shape shape, DType dtype) {
        int[] dims = shape.dims();
        return op(t -> backend.wrap(Mlx.call("zeros", r -> mlx_zeros(r, Mlx.ints(t.arena, dims), dims.length, Mlx.code(dtype), s()))));
    }

    @Override
    public Tensor full(Shape shape, double value, DType dtype) {
        int[] dims = shape.dims();
        // the value is rounded once: to f32, then to the dtype (as the java backend does)
        double stored = dtype.isFloating() ? HostValues.round((float) value, dtype)
                : dtype == DType.BOOL ? (value != 0 ? 1 : 0) : (double) (long) value;
        return op(t -> {
            MemorySegment v = dtype.isFloating() ? scalar(t, stored, DType.F32)
                    : t.own(mlx_array_new_int(Mlx.structs(), (int) (long) stored));
            return backend.wrap(Mlx.call("full", r -> mlx_full(r, Mlx.ints(t.arena, dims), dims.length, v, Mlx.code(dtype), s())));
        });
    }

    @Override
    public Tensor arange(int start, int stop, DType dtype) {
        int n = Math.max(0, stop - start);
        return op(t -> {
            // counted in int32 (exact), then converted once
            MemorySegment ints = t.call("arange", r -> mlx_arange(r, start, start + n, 1, Mlx.code(DType.I32), s()));
            return result(ints, dtype);
        });
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
        List<MlxTensor> list = new ArrayList<>(xs.size());
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
        gather.writeSlice(t(target, "target"), t(update, "update"), starts);
    }

    @Override
    public void writeAlongAxis(Tensor target, Tensor indices, Tensor values, int axis) {
        gather.writeAlongAxis(t(target, "target"), t(indices, "indices"), t(values, "values"), axis);
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
        return reduce.matmul(t(a, "a"), t(b, "b"));
    }

    @Override
    public Tensor rmsNorm(Tensor x, Tensor weight, double eps) {
        return fused.rmsNorm(t(x, "x"), weight == null ? null : t(weight, "weight"), eps);
    }

    @Override
    public Tensor layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        return fused.layerNorm(t(x, "x"), weight == null ? null : t(weight, "weight"), bias == null ? null : t(bias, "bias"), eps);
    }

    @Override
    public Tensor rope(Tensor x, RopeSpec spec, Tensor offsets) {
        return fused.rope(t(x, "x"), spec, t(offsets, "offsets"));
    }

    @Override
    public Tensor softmax(Tensor x, int axis) {
        return reduce.softmax(t(x, "x"), axis);
    }

    @Override
    public Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, double scale, AttentionMask mask) {
        MlxTensor explicit = mask instanceof AttentionMask.Explicit e ? t(e.mask(), "mask") : null;
        return fused.attention(t(q, "q"), t(k, "k"), t(v, "v"), scale, mask == null ? AttentionMask.NONE : mask, explicit);
    }

    @Override
    public QuantizedMatrix quantize(Tensor w, int groupSize, int bits) {
        return quant.quantize(t(w, "w"), groupSize, bits);
    }

    @Override
    public Tensor dequantize(QuantizedMatrix w) {
        // MLX cannot reshape an empty array, and an empty cache (a row before its first token) is a normal state
        if (w.packed().shape().size() == 0) return zeros(w.packed().shape().with(-1, w.cols()), w.scales().dtype());
        return quant.dequantize(w);
    }

    @Override
    public Tensor quantizedMatmul(Tensor x, QuantizedMatrix w, boolean transpose) {
        return quant.quantizedMatmul(t(x, "x"), w, transpose);
    }
}
