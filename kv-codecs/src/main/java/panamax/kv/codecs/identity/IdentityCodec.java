package panamax.kv.codecs.identity;

import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;

/**
 * Stores keys and values unchanged in one plane of the chosen dtype. Attention runs the backend's
 * fused attention directly on the stored planes (no copy). Holds no tensors; not thread-safe.
 */
final class IdentityCodec implements KvCodec {
    private final CodecShape shape;
    private final DType storage;
    private final CodecContext context;

    IdentityCodec(CodecShape shape, DType storage, CodecContext context) {
        this.shape = shape;
        this.storage = storage;
        this.context = context;
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        checkHeadDim(x);
        return List.of(context.backend().ops().astype(x, storage));
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        Tensor values = single(planes);
        return context.backend().ops().astype(values, context.activationType());
    }

    @Override
    public Tensor attend(Tensor queries, List<Tensor> keyPlanes, List<Tensor> valuePlanes, double scale,
                         AttentionMask mask) {
        return context.backend().ops().scaledDotProductAttention(queries, single(keyPlanes), single(valuePlanes), scale, mask);
    }

    private Tensor single(List<Tensor> planes) {
        if (planes.size() != 1) throw new IllegalArgumentException("identity expects 1 plane (values), found " + planes.size());
        Tensor values = planes.getFirst();
        checkHeadDim(values);
        return values;
    }

    private void checkHeadDim(Tensor x) {
        if (x.rank() != 4 || x.dim(-1) != shape.headDim()) {
            throw new IllegalArgumentException("expected [rows, heads, tokens, " + shape.headDim() + "], found " + x.shape());
        }
    }

    @Override
    public void close() {
        // holds no tensors
    }
}
