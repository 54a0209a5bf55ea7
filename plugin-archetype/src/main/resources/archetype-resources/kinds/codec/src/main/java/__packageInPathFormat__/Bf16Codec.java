package ${package};

import java.util.List;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.DType;
import panamax.api.tensor.Tensor;

/**
 * One layer's keys and values in bfloat16. Encoding rounds each element to nearest even on the
 * backend ({@code astype}); decoding widens back to the activation dtype. Attention uses the SPI's
 * default: decode the cache, then the backend's attention. A format with arithmetic of its own reads
 * the values with {@code backend.toFloats(x)} and writes its planes with {@code backend.fromFloats}
 * or {@code fromInts} (panamax's {@code examples/fp8-kv-codec} does), or overrides {@code attend} to
 * work on its planes directly. Holds no tensors; safe to share.
 */
final class Bf16Codec implements KvCodec {
    private final CodecShape shape;
    private final DType activationType;

    Bf16Codec(CodecShape shape, DType activationType) {
        this.shape = shape;
        this.activationType = activationType;
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    /** Encodes borrowed {@code x [rows, heads, tokens, headDim]} into one new plane, as {@code shape()} declares. */
    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        checkVectors("encode", x);
        return List.of(x.backend().ops().astype(x, DType.BF16));
    }

    /** Decodes borrowed planes into a new tensor in the activation dtype. */
    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        if (planes.size() != 1) {
            throw new IllegalArgumentException(Bf16CodecProvider.ID + " decode: expected 1 plane (values), found " + planes.size());
        }
        Tensor values = planes.getFirst();
        checkVectors("decode", values);
        return values.backend().ops().astype(values, activationType);
    }

    private void checkVectors(String operation, Tensor x) {
        if (x.rank() != 4 || x.dim(3) != shape.headDim()) {
            throw new IllegalArgumentException(Bf16CodecProvider.ID + " " + operation + ": expected [rows, heads, tokens, "
                    + shape.headDim() + "], found " + x.shape());
        }
    }

    @Override
    public void close() {
        // holds no tensors or native resources
    }
}
