package panamax.api.kv;

/**
 * Sharing one layer's KV with later layers (Gemma 3n's KV sharing): the later layer attends over a
 * {@link KvCapture} of this layer's storage, in this layer's columns, without copying. A layout that
 * declares {@link LayoutCapabilities#capturable()} implements it.
 *
 * @since 0.4
 */
public interface DonorCapture {
    /**
     * A view of this layer's KV for a later layer that shares it, without copying; owned by the caller.
     *
     * @throws UnsupportedOperationException when the layout cannot expose its storage (it does not
     *         declare {@link LayoutCapabilities#capturable()})
     * @since 0.1
     */
    default KvCapture capture() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be captured by another layer");
    }
}
