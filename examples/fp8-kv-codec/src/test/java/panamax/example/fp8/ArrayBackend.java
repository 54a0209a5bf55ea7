package panamax.example.fp8;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendCapabilities;
import panamax.api.tensor.DType;
import panamax.api.tensor.MemoryStats;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A test backend holding tensors as Java arrays: enough for a codec that only moves data through
 * {@code fromFloats / fromInts / toFloats / toInts}. It has no op surface; the example depends on
 * panamax.api only, so its tests cannot use backend-java.
 */
final class ArrayBackend implements Backend {
    private long active;

    /** A tensor of floats or ints; U8 keeps the low 8 bits like a real backend. */
    record ArrayTensor(Shape shape, DType dtype, Backend backend, float[] floats, int[] ints) implements Tensor {
        @Override
        public void close() {
        }
    }

    @Override
    public String name() {
        return "arrays";
    }

    @Override
    public BackendCapabilities capabilities() {
        return new BackendCapabilities(Set.of(DType.F32, DType.U8), Set.of(), Set.of(), false, Set.of("cpu"));
    }

    @Override
    public Ops ops() {
        throw new UnsupportedOperationException("the array test backend has no ops");
    }

    @Override
    public Tensor fromFloats(float[] data, Shape shape, DType dtype) {
        if (data.length != shape.size() || dtype != DType.F32) throw new IllegalArgumentException(shape + " " + dtype);
        active += data.length * 4L;
        return new ArrayTensor(shape, dtype, this, data.clone(), null);
    }

    @Override
    public Tensor fromInts(int[] data, Shape shape, DType dtype) {
        if (data.length != shape.size() || dtype != DType.U8) throw new IllegalArgumentException(shape + " " + dtype);
        int[] bytes = new int[data.length];
        for (int i = 0; i < data.length; i++) bytes[i] = data[i] & 0xFF;
        active += data.length;
        return new ArrayTensor(shape, dtype, this, null, bytes);
    }

    @Override
    public Tensor fromSegment(MemorySegment data, Shape shape, DType dtype) {
        throw new UnsupportedOperationException("not needed by the codec");
    }

    @Override
    public void eval(Tensor... tensors) {
    }

    @Override
    public float[] toFloats(Tensor tensor) {
        ArrayTensor t = (ArrayTensor) tensor;
        if (t.floats() != null) return t.floats().clone();
        float[] out = new float[t.ints().length];
        for (int i = 0; i < out.length; i++) out[i] = t.ints()[i];
        return out;
    }

    @Override
    public int[] toInts(Tensor tensor) {
        ArrayTensor t = (ArrayTensor) tensor;
        if (t.ints() != null) return t.ints().clone();
        int[] out = new int[t.floats().length];
        for (int i = 0; i < out.length; i++) out[i] = (int) t.floats()[i];
        return out;
    }

    @Override
    public MemoryStats memoryStats() {
        return new MemoryStats(active, active, 0);
    }

    @Override
    public void resetPeakMemory() {
    }

    @Override
    public void close() {
    }
}
