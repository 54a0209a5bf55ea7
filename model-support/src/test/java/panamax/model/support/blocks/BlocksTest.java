package panamax.model.support.blocks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.UnaryOp;

/** The blocks against float64 arithmetic written out here, on the java backend. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BlocksTest {
    private static final int ROWS = 3, IN = 5, WIDTH = 7;
    private final Random random = new Random(7);
    private Backend backend;
    private Ops ops;

    @BeforeAll
    void start() {
        BackendProvider java = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("java")).findFirst().orElseThrow(() -> new AssertionError("no java backend on the test path"));
        backend = java.create(new BackendOptions(1, Optional.empty(), Map.of()));
        ops = backend.ops();
    }

    @AfterAll
    void stop() {
        backend.close();
    }

    @Test
    void aConv1dWeightProjectsAsItsTransposeDoesAsALinearWeight() {
        float[] x = floats(ROWS * IN), w = floats(IN * WIDTH), b = floats(WIDTH);
        float[] expected = new float[ROWS * WIDTH];
        for (int r = 0; r < ROWS; r++) {
            for (int o = 0; o < WIDTH; o++) {
                double sum = b[o];
                for (int i = 0; i < IN; i++) sum += (double) x[r * IN + i] * w[i * WIDTH + o];
                expected[r * WIDTH + o] = (float) sum;
            }
        }
        try (Linear conv = Linear.inputMajor(tensor(w, IN, WIDTH), tensor(b, WIDTH));
             Linear linear = Linear.dense(tensor(transpose(w, IN, WIDTH), WIDTH, IN), tensor(b, WIDTH));
             Tensor in = tensor(x, 1, ROWS, IN);
             Tensor byConv = conv.apply(ops, in);
             Tensor byLinear = linear.apply(ops, in)) {
            assertEquals(Shape.of(1, ROWS, WIDTH), byConv.shape());
            assertArrayEquals(expected, backend.toFloats(byConv), 1e-5f);
            assertArrayEquals(backend.toFloats(byLinear), backend.toFloats(byConv), 1e-6f);
        }
    }

    @Test
    void aPlainMlpIsDownOfTheActivatedUpAndAGatedOneMultipliesByTheGate() {
        float[] x = floats(ROWS * IN), gate = floats(WIDTH * IN), up = floats(WIDTH * IN), down = floats(IN * WIDTH);
        double[] g = product(x, gate, WIDTH), u = product(x, up, WIDTH);
        double[] plainHidden = new double[ROWS * WIDTH], gatedHidden = new double[ROWS * WIDTH];
        for (int i = 0; i < g.length; i++) {
            plainHidden[i] = geluTanh(u[i]);
            gatedHidden[i] = silu(g[i]) * u[i];
        }
        try (Mlp plain = Mlp.plain(linear(up, WIDTH, IN), linear(down, IN, WIDTH));
             Mlp gated = Mlp.gated(linear(gate, WIDTH, IN), linear(up, WIDTH, IN), linear(down, IN, WIDTH));
             Tensor in = tensor(x, ROWS, IN);
             Tensor p = plain.apply(ops, UnaryOp.GELU_TANH, in);
             Tensor q = gated.apply(ops, UnaryOp.SILU, in)) {
            assertArrayEquals(toFloats(product(plainHidden, down, IN, WIDTH)), backend.toFloats(p), 1e-5f);
            assertArrayEquals(toFloats(product(gatedHidden, down, IN, WIDTH)), backend.toFloats(q), 1e-5f);
        }
    }

    @Test
    void splittingIntoHeadsAndMergingGivesTheTensorBack() {
        float[] x = floats(2 * 3 * 8);
        try (Tensor in = tensor(x, 2, 3, 8);
             Tensor heads = Attention.split(ops, in, 4, 2, null, 0);
             Tensor merged = Attention.merge(ops, heads)) {
            assertEquals(Shape.of(2, 4, 3, 2), heads.shape());
            float[] h = backend.toFloats(heads);
            assertEquals(x[1 * 24 + 2 * 8 + 3 * 2 + 1], h[((1 * 4 + 3) * 3 + 2) * 2 + 1]); // batch 1, token 2, head 3, feature 1
            assertArrayEquals(x, backend.toFloats(merged));
        }
    }

    @Test
    void layerNormCentresAndScalesAndRmsNormOnlyScales() {
        float[] x = floats(ROWS * IN), w = floats(IN), b = floats(IN);
        float[] layer = new float[x.length], rms = new float[x.length];
        for (int r = 0; r < ROWS; r++) {
            double mean = 0, square = 0;
            for (int i = 0; i < IN; i++) {
                mean += x[r * IN + i] / (double) IN;
                square += x[r * IN + i] * (double) x[r * IN + i] / IN;
            }
            double variance = square - mean * mean;
            for (int i = 0; i < IN; i++) {
                layer[r * IN + i] = (float) ((x[r * IN + i] - mean) / Math.sqrt(variance + 1e-5) * w[i] + b[i]);
                rms[r * IN + i] = (float) (x[r * IN + i] / Math.sqrt(square + 1e-5) * w[i]);
            }
        }
        try (Norm ln = Norm.layer(tensor(w, IN), tensor(b, IN), 1e-5); Norm rn = Norm.rms(tensor(w, IN), 1e-5);
             Tensor in = tensor(x, ROWS, IN); Tensor l = ln.apply(ops, in); Tensor r = rn.apply(ops, in)) {
            assertArrayEquals(layer, backend.toFloats(l), 1e-4f);
            assertArrayEquals(rms, backend.toFloats(r), 1e-4f);
        }
    }

    private Linear linear(float[] w, int out, int in) {
        return Linear.dense(tensor(w, out, in), null);
    }

    private Tensor tensor(float[] values, int... dims) {
        return backend.fromFloats(values, Shape.of(dims), DType.F32);
    }

    private float[] floats(int n) {
        float[] out = new float[n];
        for (int i = 0; i < n; i++) out[i] = (float) random.nextGaussian();
        return out;
    }

    /** {@code x [ROWS, IN] · wᵀ} for {@code w [out, IN]}. */
    private static double[] product(float[] x, float[] w, int out) {
        double[] xd = new double[x.length];
        for (int i = 0; i < x.length; i++) xd[i] = x[i];
        return product(xd, w, out, IN);
    }

    /** {@code x [rows, in] · wᵀ} for {@code w [out, in]}. */
    private static double[] product(double[] x, float[] w, int out, int in) {
        int rows = x.length / in;
        double[] y = new double[rows * out];
        for (int r = 0; r < rows; r++) {
            for (int o = 0; o < out; o++) {
                for (int i = 0; i < in; i++) y[r * out + o] += x[r * in + i] * w[o * in + i];
            }
        }
        return y;
    }

    private static float[] transpose(float[] w, int rows, int cols) {
        float[] t = new float[w.length];
        for (int r = 0; r < rows; r++) for (int c = 0; c < cols; c++) t[c * rows + r] = w[r * cols + c];
        return t;
    }

    private static float[] toFloats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) f[i] = (float) d[i];
        return f;
    }

    private static double silu(double v) {
        return v / (1 + Math.exp(-v));
    }

    private static double geluTanh(double v) {
        return 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v)));
    }
}
