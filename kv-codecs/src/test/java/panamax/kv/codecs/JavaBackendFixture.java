package panamax.kv.codecs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ServiceLoader;
import java.util.function.Consumer;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.kv.codecs.internal.SplitMix64;

/** The Java backend, found through {@link ServiceLoader} as the engine finds it, and test-data helpers. */
public final class JavaBackendFixture {
    private static Backend shared;

    private JavaBackendFixture() {
    }

    /** One backend for the whole test JVM (creating it starts a thread pool). */
    public static synchronized Backend backend() {
        if (shared == null) {
            for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
                if (p.id().equals("java")) shared = p.create(BackendOptions.defaults());
            }
            if (shared == null) throw new IllegalStateException("backend 'java' not found through ServiceLoader");
        }
        return shared;
    }

    /** Runs {@code body} and asserts the backend's active bytes are back at their baseline afterwards. */
    public static void leakChecked(Consumer<Backend> body) {
        Backend b = backend();
        long before = b.memoryStats().activeBytes();
        body.accept(b);
        assertEquals(before, b.memoryStats().activeBytes(), "backend active bytes after closing every tensor");
    }

    /** Seeded standard normals. */
    public static float[] gaussians(long seed, int n) {
        SplitMix64 rng = new SplitMix64(seed);
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = (float) rng.nextGaussian();
        return out;
    }

    /** Seeded random unit vectors of length d, {@code count} of them, row after row. */
    public static float[] unitVectors(long seed, int count, int d) {
        float[] out = gaussians(seed, count * d);
        for (int v = 0; v < count; v++) {
            double norm = 0;
            for (int i = v * d; i < (v + 1) * d; i++) norm += (double) out[i] * out[i];
            for (int i = v * d; i < (v + 1) * d; i++) out[i] = (float) (out[i] / Math.sqrt(norm));
        }
        return out;
    }

    public static Tensor tensor(Backend b, float[] data, DType dtype, int... dims) {
        return b.fromFloats(data, Shape.of(dims), dtype);
    }

    /** Largest absolute elementwise difference. */
    public static double maxAbsDiff(float[] a, float[] b) {
        assertEquals(a.length, b.length, "lengths");
        double m = 0;
        for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
        return m;
    }
}
