package panamax.backend.java.kernel;

/**
 * A form of a weight's bytes made once for faster products and kept with the weight's storage (tiles, widened codes):
 * the bytes it holds off-heap, counted as the weights are, and freed by {@link #close}.
 */
public interface DerivedForm extends AutoCloseable {
    /** Bytes this form holds off-heap. */
    long bytes();

    @Override
    void close();
}
