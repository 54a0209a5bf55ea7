package panamax.kv.codecs.affine;

import java.util.List;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.KvKernels;

/**
 * MLX affine group quantization of keys and values, with attention on the planes through the
 * backend's {@code AffineKvKernels} (the Java backend fuses scores, softmax and values per kv head;
 * without them {@link KvKernels} composes {@code quantizedMatmul}s) — the cache is never dequantized
 * as a whole. Holds no tensors; not thread-safe.
 */
final class AffineCodec implements KvCodec {
    private final CodecShape shape;
    private final int bits;
    private final int groupSize;
    private final DType activation;
    /** The context's backend: every op goes through it (a wrapping backend, e.g. a timer, sees them all). */
    private final Backend backend;
    private final KvKernels kernels;

    AffineCodec(CodecShape shape, int bits, int groupSize, DType activation, Backend backend) {
        this.shape = shape;
        this.bits = bits;
        this.groupSize = groupSize;
        this.activation = activation;
        this.backend = backend;
        this.kernels = KvKernels.of(backend);
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        if (x.rank() != 4 || x.dim(-1) != shape.headDim()) {
            throw new IllegalArgumentException("expected [rows, heads, tokens, " + shape.headDim() + "], found " + x.shape());
        }
        Ops ops = backend.ops();
        // scales and biases take the input's dtype; the planes must carry the activation dtype
        if (x.dtype() != activation) {
            try (Tensor cast = ops.astype(x, activation)) {
                QuantizedMatrix q = ops.quantize(cast, groupSize, bits);
                return List.of(q.packed(), q.scales(), q.biases());
            }
        }
        QuantizedMatrix q = ops.quantize(x, groupSize, bits);
        return List.of(q.packed(), q.scales(), q.biases());
    }

    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        return backend.ops().dequantize(matrix(planes));
    }

    @Override
    public Tensor attend(Tensor queries, List<Tensor> keyPlanes, List<Tensor> valuePlanes, double scale,
                         AttentionMask mask) {
        QuantizedMatrix keys = matrix(keyPlanes);
        QuantizedMatrix values = matrix(valuePlanes);
        if (queries.rank() != 4) throw new IllegalArgumentException("queries: expected [B, Hq, Tq, D], found " + queries.shape());
        int b = queries.dim(0);
        int hq = queries.dim(1);
        int d = queries.dim(3);
        int hkv = keys.packed().dim(1);
        if (d != shape.headDim() || hq % hkv != 0 || keys.packed().dim(0) != b
                || !values.packed().shape().equals(keys.packed().shape())) {
            throw new IllegalArgumentException("queries " + queries.shape() + " do not fit key planes "
                    + keys.packed().shape() + " and value planes " + values.packed().shape());
        }
        return kernels.quantizedAttention(queries, keys, values, scale, mask);
    }

    /** A borrowed view of planes as a quantized matrix; never closed here (the caller owns the planes). */
    private QuantizedMatrix matrix(List<Tensor> planes) {
        if (planes.size() != 3) {
            throw new IllegalArgumentException("affine expects 3 planes (packed, scales, biases), found " + planes.size());
        }
        Tensor packed = planes.get(0);
        if (packed.rank() != 4 || packed.dim(-1) != shape.headDim() * bits / 32) {
            throw new IllegalArgumentException("packed plane: expected [rows, heads, tokens, " + shape.headDim() * bits / 32
                    + "], found " + packed.shape());
        }
        return new QuantizedMatrix(packed, planes.get(1), planes.get(2), groupSize, bits);
    }

    @Override
    public void close() {
        // holds no tensors
    }
}
