package panamax.layout.tck;

import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/**
 * Values stored reversed along the head dimension and negated (an orthogonal map), keys unchanged;
 * attention runs on the planes and un-rotates its output, so a layout that bypassed
 * {@link #attend} would return wrong values. Owns one index tensor.
 */
final class RotatedCodec implements KvCodec {
    private final CodecShape shape;
    private final CodecContext context;
    private final Tensor reversed; // I32 [headDim]: d-1 .. 0

    RotatedCodec(CodecShape shape, CodecContext context) {
        this.shape = shape;
        this.context = context;
        int d = shape.headDim();
        int[] order = new int[d];
        for (int i = 0; i < d; i++) order[i] = d - 1 - i;
        this.reversed = context.backend().fromInts(order, Shape.of(d), DType.I32);
    }

    /** The map is its own inverse: reverse the last axis and negate. */
    private Tensor rotate(Ops ops, Tensor x, DType dtype) {
        try (Tensor r = ops.take(x, reversed, 3); Tensor n = ops.unary(UnaryOp.NEG, r)) {
            return ExactCodec.converted(ops, n, dtype);
        }
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        Ops ops = context.backend().ops();
        return List.of(role == KvRole.KEY ? ExactCodec.converted(ops, x, DType.F32) : rotate(ops, x, DType.F32));
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        Ops ops = context.backend().ops();
        return role == KvRole.KEY ? ExactCodec.converted(ops, planes.getFirst(), context.activationType())
                : rotate(ops, planes.getFirst(), context.activationType());
    }

    @Override
    public Tensor attend(Tensor queries, List<Tensor> keyPlanes, List<Tensor> valuePlanes, double scale, AttentionMask mask) {
        Ops ops = context.backend().ops();
        try (Tensor rotatedOut = ops.scaledDotProductAttention(queries, keyPlanes.getFirst(), valuePlanes.getFirst(), scale, mask)) {
            return rotate(ops, rotatedOut, queries.dtype());
        }
    }

    @Override
    public void close() {
        reversed.close();
    }
}
