package panamax.layout.tck;

import java.util.List;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Tensor;

/** Keys and values as f32 copies. Holds no tensors. */
final class ExactCodec implements KvCodec {
    private final CodecShape shape;
    private final CodecContext context;

    ExactCodec(CodecShape shape, CodecContext context) {
        this.shape = shape;
        this.context = context;
    }

    /** A new tensor holding {@code x} in {@code dtype}, never {@code x} itself. */
    static Tensor converted(Ops ops, Tensor x, DType dtype) {
        return x.dtype() == dtype ? ops.copy(x) : ops.astype(x, dtype);
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        return List.of(converted(context.backend().ops(), x, DType.F32));
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        return converted(context.backend().ops(), planes.getFirst(), context.activationType());
    }

    @Override
    public void close() {
    }
}
