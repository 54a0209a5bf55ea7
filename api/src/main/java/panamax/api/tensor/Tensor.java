package panamax.api.tensor;

/**
 * An n-dimensional array owned by one backend. A tensor returned by any backend or op is owned by
 * the caller, who must close it (try-with-resources); tensors passed to ops are borrowed and stay
 * open. Closing a view does not invalidate the tensor it views; the storage is freed when the last
 * handle to it closes. Closing twice is harmless. Using a closed tensor throws
 * {@link IllegalStateException}. Handles may be read from several threads; closing is not
 * concurrent with use.
 */
public interface Tensor extends AutoCloseable {
    Shape shape();

    DType dtype();

    /** The backend that owns the storage; ops only accept tensors of their own backend. */
    Backend backend();

    /** Releases this handle. */
    @Override
    void close();

    /** Shorthand for {@code shape().dim(axis)}. */
    default int dim(int axis) {
        return shape().dim(axis);
    }

    default int rank() {
        return shape().rank();
    }

    default long size() {
        return shape().size();
    }
}
