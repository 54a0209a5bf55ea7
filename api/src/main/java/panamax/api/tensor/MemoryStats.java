package panamax.api.tensor;

/**
 * A backend's memory accounting at one instant.
 *
 * @param activeBytes bytes of tensor storage currently allocated and not yet freed (mapped files excluded)
 * @param peakBytes   the largest {@code activeBytes} seen since creation or the last peak reset
 * @param mappedBytes bytes of files mapped into tensors that are still open
 */
public record MemoryStats(long activeBytes, long peakBytes, long mappedBytes) {
}
