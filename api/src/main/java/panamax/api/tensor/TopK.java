package panamax.api.tensor;

/**
 * The k largest values along the last axis and their indices, both owned by the caller.
 *
 * @param values  [..., k], same dtype as the input, sorted descending
 * @param indices I32 [..., k]; ties keep the lower index first
 */
public record TopK(Tensor values, Tensor indices) implements AutoCloseable {
    @Override
    public void close() {
        values.close();
        indices.close();
    }
}
