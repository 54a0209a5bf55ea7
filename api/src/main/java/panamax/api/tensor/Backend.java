package panamax.api.tensor;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import panamax.api.tensor.kernel.KernelFamily;

/**
 * A live tensor backend: creates tensors, reads them back and runs {@link Ops} on them. Owned by
 * whoever created it through {@link BackendProvider#create}; closing it releases its threads and
 * pools (tensors should be closed first; memory stats show any that were not). Thread-safe.
 */
public interface Backend extends AutoCloseable {
    /** The provider id, e.g. {@code java}. */
    String name();

    BackendCapabilities capabilities();

    /** The core op surface; tensors of other backends are refused. */
    Ops ops();

    /**
     * The backend's kernels of {@code family}, or empty when it offers none: present exactly for the
     * families its {@link #capabilities()} list in {@link BackendCapabilities#kernels()}. The same
     * instance on every call.
     *
     * {@snippet :
     * Optional<CodebookKernels> fused = backend.kernel(CodebookKernels.class); // empty: compose the values from ops()
     * }
     *
     * @since 0.4
     */
    default <K extends KernelFamily> Optional<K> kernel(Class<K> family) {
        return Optional.empty();
    }

    /**
     * A new tensor holding {@code data} (row-major) rounded to {@code dtype} (nearest, ties to even
     * for BF16/F16). Owned by the caller.
     *
     * @throws IllegalArgumentException when {@code data.length != shape.size()} or dtype is not floating
     */
    Tensor fromFloats(float[] data, Shape shape, DType dtype);

    /**
     * A new integer tensor (I32, U32 bit patterns, U8 and BOOL take the low bits / non-zero).
     * Owned by the caller.
     */
    Tensor fromInts(int[] data, Shape shape, DType dtype);

    /**
     * A tensor over raw little-endian bytes of {@code dtype} in row-major order, e.g. a slice of a
     * memory-mapped safetensors file. Backends that can address the segment directly do not copy
     * it; then the segment's scope must outlive the tensor. Owned by the caller.
     *
     * @throws IllegalArgumentException when the segment's size is not {@code shape.size() * dtype.byteSize()}
     */
    Tensor fromSegment(MemorySegment data, Shape shape, DType dtype);

    /** Evaluates pending lazy computation of the given tensors. No-op for eager backends. */
    void eval(Tensor... tensors);

    /** The tensor's values widened to f32, row-major (integers converted exactly up to 2^24). */
    float[] toFloats(Tensor tensor);

    /** The tensor's values as ints, row-major; floating values are truncated toward zero; U32 as bit patterns. */
    int[] toInts(Tensor tensor);

    /** Active and peak bytes of tensor storage owned by this backend. */
    MemoryStats memoryStats();

    /** Starts a new peak measurement at the current active bytes. */
    void resetPeakMemory();

    /** Releases threads and pools. Idempotent. */
    @Override
    void close();
}
