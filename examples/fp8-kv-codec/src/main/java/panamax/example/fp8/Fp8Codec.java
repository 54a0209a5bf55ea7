package panamax.example.fp8;

import java.util.List;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvRole;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * FP8 E4M3 encoding of one layer's keys and values. Each vector of {@code headDim} features (one
 * token of one head) is scaled by {@code amax / 448} so its largest element lands on E4M3's
 * largest finite value, then rounded to nearest even. The api has no FP8 dtype, so codes go
 * through the backend as U8 and the arithmetic runs here in Java; attention uses the SPI default
 * (decode, then the backend's attention). Holds no tensors, so it needs no closing work; safe to share.
 */
final class Fp8Codec implements KvCodec {
    private final CodecShape shape;
    private final DType activationType;

    Fp8Codec(CodecShape shape, DType activationType) {
        this.shape = shape;
        this.activationType = activationType;
    }

    @Override
    public CodecShape shape() {
        return shape;
    }

    /** Encodes borrowed {@code x [rows, heads, tokens, headDim]} into new {@code codes} and {@code scale} planes. */
    @Override
    public List<Tensor> encode(KvRole role, Tensor x) {
        int headDim = shape.headDim();
        if (x.rank() != 4 || x.dim(3) != headDim) {
            throw new IllegalArgumentException("fp8 encode: expected [rows, heads, tokens, " + headDim + "], found " + x.shape());
        }
        Backend backend = x.backend();
        float[] values = backend.toFloats(x);
        int vectors = values.length / headDim;
        int[] codes = new int[values.length];
        float[] scales = new float[vectors];
        for (int v = 0; v < vectors; v++) scales[v] = encodeVector(values, v * headDim, headDim, codes);
        Shape vectorShape = x.shape().with(3, 1);
        Tensor codeTensor = backend.fromInts(codes, x.shape(), DType.U8);
        try {
            return List.of(codeTensor, backend.fromFloats(scales, vectorShape, DType.F32));
        } catch (RuntimeException e) {
            codeTensor.close();
            throw e;
        }
    }

    /** Decodes borrowed {@code codes} and {@code scale} planes into a new tensor in the activation dtype. */
    @Override
    public Tensor decode(KvRole role, List<Tensor> planes) {
        if (planes.size() != 2) throw new IllegalArgumentException("fp8 decode: expected planes [codes, scale], found " + planes.size());
        Tensor codeTensor = planes.get(0);
        Backend backend = codeTensor.backend();
        int headDim = shape.headDim();
        int[] codes = backend.toInts(codeTensor);
        float[] scales = backend.toFloats(planes.get(1));
        if (codes.length != scales.length * headDim) {
            throw new IllegalArgumentException("fp8 decode: " + codes.length + " codes do not match " + scales.length + " scales of " + headDim);
        }
        float[] values = new float[codes.length];
        for (int v = 0; v < scales.length; v++) decodeVector(codes, scales[v], v * headDim, headDim, values);
        return backend.fromFloats(values, codeTensor.shape(), activationType);
    }

    /**
     * Encodes {@code values[offset, offset+length)} into {@code codes} at the same indices and
     * returns the vector's scale ({@code amax / 448}; 0 for an all-zero vector).
     */
    static float encodeVector(float[] values, int offset, int length, int[] codes) {
        float amax = 0;
        for (int i = offset; i < offset + length; i++) amax = Math.max(amax, Math.abs(values[i]));
        float scale = amax / E4M3.MAX;
        for (int i = offset; i < offset + length; i++) {
            codes[i] = scale == 0 ? 0 : E4M3.encode(values[i] / scale) & 0xFF;
        }
        return scale;
    }

    /** Decodes {@code codes[offset, offset+length)} times {@code scale} into {@code out} at the same indices. */
    static void decodeVector(int[] codes, float scale, int offset, int length, float[] out) {
        for (int i = offset; i < offset + length; i++) out[i] = E4M3.decode(codes[i]) * scale;
    }

    @Override
    public void close() {
        // Holds no tensors or native resources.
    }
}
