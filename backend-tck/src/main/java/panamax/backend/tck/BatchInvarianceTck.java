package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import panamax.api.tensor.Tensor;

/**
 * The base of the batch-invariance suites ({@link RowOpsBatchInvarianceTck},
 * {@link AttentionBatchInvarianceTck}): a row's result must be bit for bit the one it gets alone,
 * whatever the other rows of its batch hold, how many there are and how much left padding they take;
 * and a token's result in a multi-token call the one it gets fed alone. A batching server that promises
 * "same seed, same tokens, alone or batched" needs exactly that of every op on a decoder's path. Values
 * are compared as raw bits ({@link Float#floatToRawIntBits}), not within a tolerance: the float64
 * references of the other suites already check accuracy.
 *
 * <p>A backend that does not promise this (GPU kernels commonly pick their reduction split by the batch
 * size) overrides {@link #batchDependence} with its reason; every test then reports a skip naming it.
 */
public abstract class BatchInvarianceTck extends BackendTck {

    /**
     * Why the backend's results for a row may depend on the rest of its batch, or empty when the backend
     * promises they do not (the default: the suites run).
     */
    protected Optional<String> batchDependence() {
        return Optional.empty();
    }

    @BeforeEach
    final void backendPromisesBatchInvariance() {
        Optional<String> reason = batchDependence();
        Assumptions.assumeTrue(reason.isEmpty(), () -> "backend " + backend().name()
                + " does not promise batch-invariant results: " + reason.orElse(""));
    }

    /** The tensor's values read back as f32 (after {@code eval}). */
    protected final float[] floats(Tensor t) {
        backend().eval(t);
        return backend().toFloats(t);
    }

    /**
     * Asserts that {@code actual[aOff, aOff + n)} holds the same bits as {@code expected[eOff, eOff + n)}, naming
     * the first few elements that differ.
     */
    protected static void assertSameBits(String what, float[] expected, int eOff, float[] actual, int aOff, int n) {
        StringBuilder diffs = new StringBuilder();
        int bad = 0;
        double worst = 0;
        for (int i = 0; i < n; i++) {
            float e = expected[eOff + i];
            float a = actual[aOff + i];
            if (Float.floatToRawIntBits(e) == Float.floatToRawIntBits(a)) continue;
            worst = Math.max(worst, Math.abs((double) e - a));
            if (bad++ < 4) diffs.append("\n  at ").append(i).append(": alone ").append(e).append(", here ").append(a);
        }
        if (bad > 0) fail(what + ": " + bad + " of " + n + " values differ in their bits (largest difference " + worst + ")" + diffs);
    }

    /** {@link #assertSameBits(String, float[], int, float[], int, int)} over whole arrays of one length. */
    protected static void assertSameBits(String what, float[] expected, float[] actual) {
        if (expected.length != actual.length) fail(what + ": " + expected.length + " values alone, " + actual.length + " here");
        assertSameBits(what, expected, 0, actual, 0, expected.length);
    }

    /** The values of rows {@code [from, to)} of {@code all}, rows of {@code width} values. */
    protected static float[] rows(float[] all, int width, int from, int to) {
        return java.util.Arrays.copyOfRange(all, from * width, to * width);
    }
}
