package panamax.backend.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.api.tensor.kernel.KernelFamily;

/**
 * The base of every TCK class: creates one backend per test class from {@link #provider()}, closes
 * it after the class, and after every test checks that {@code memoryStats().activeBytes()} is back
 * at its value before the test (every tensor closed). A provider that reports itself unavailable
 * skips the class.
 *
 * <p><b>Tolerance rule.</b> A reference value {@code r} is computed in float64 from the exact
 * (dtype-rounded) inputs, together with a magnitude {@code m ≥ 0}: the size of the terms the op
 * combines (Σ|terms| for sums and dot products, the input size for elementwise functions, plus a
 * first-order bound on error that f32 math cannot avoid, such as angle error in RoPE). A result
 * {@code a} passes when
 * <ul>
 *   <li>F32, BF16, F16: {@code |a − round(r)| ≤ 1e-5·(|r| + m) + ulp + 2^-126}, where {@code round}
 *       rounds to the result dtype (nearest even), {@code ulp} is that dtype's spacing at
 *       {@code max(|r|, |a|)} (the result of f32 math rounded once to the result type: one bf16 ulp
 *       for BF16 results) and {@code 2^-126}, f32's smallest normal, forgives underflow (in attention
 *       also that of a weight below 2^-126, whose term {@code p·v} may be larger: see
 *       {@link FusedReferences#attention});</li>
 *   <li>integer and BOOL results, data movement (views, copies, gathers) and affine packed words,
 *       scales and biases: exactly equal.</li>
 * </ul>
 *
 * <p>Properties ({@link #qt}) run twice: with a seed drawn per test JVM, so every build explores new
 * inputs, and with the fixed seed {@value PropertySeeds#FIXED}; a failure names its seed, and
 * {@code -Dpanamax.qt.seed=N} replays it alone (see {@link PropertySeeds}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class BackendTck {
    /** The relative tolerance of f32 math. */
    public static final double RTOL = 1e-5;

    private Backend backend;
    private long baselineBytes;

    /** The provider of the backend under test; called once per test class. */
    protected abstract BackendProvider provider();

    /** Options the backend is created with; defaults to {@link BackendOptions#defaults()}. */
    protected BackendOptions options() {
        return BackendOptions.defaults();
    }

    @BeforeAll
    final void createBackend() {
        BackendProvider provider = provider();
        Assumptions.assumeTrue(provider.unavailableReason().isEmpty(),
                () -> "backend " + provider.id() + " unavailable: " + provider.unavailableReason().orElse(""));
        backend = provider.create(options());
    }

    @AfterAll
    final void closeBackend() {
        if (backend != null) backend.close();
    }

    @BeforeEach
    final void recordBaselineBytes() {
        baselineBytes = backend.memoryStats().activeBytes();
    }

    @AfterEach
    final void everyTensorWasClosed() {
        assertEquals(baselineBytes, backend.memoryStats().activeBytes(),
                "active bytes after the test differ from before it: a tensor was leaked (or freed twice)");
    }

    protected final Backend backend() {
        return backend;
    }

    protected final Ops ops() {
        return backend.ops();
    }

    /**
     * The backend's kernels of {@code family}; when it offers none, aborts the calling test (reported as
     * skipped, naming the family). Tests of optional kernels reach them through an overridable hook that
     * calls this, so a subclass can hand in a composition of them to check instead.
     */
    protected final <K extends KernelFamily> K kernel(Class<K> family) {
        return backend.kernel(family).orElseGet(() -> Assumptions.abort("backend " + backend.name() + " offers no " + family.getSimpleName()));
    }

    /** A property of {@code examples} cases per pass, with the suite's seeds ({@link PropertySeeds}). */
    protected static Property qt(int examples) {
        return Property.examples(examples);
    }

    /** The floating dtypes the backend stores, among {@code candidates}. */
    protected final Set<DType> supported(DType... candidates) {
        Set<DType> out = EnumSet.noneOf(DType.class);
        for (DType d : candidates) if (backend.capabilities().storageTypes().contains(d)) out.add(d);
        return out;
    }

    /** A new contiguous tensor holding {@code values} in {@code dtype}. Owned by the caller. */
    protected final Tensor input(Ref values, DType dtype) {
        return dtype.isFloating()
                ? backend.fromFloats(values.toFloats(), values.shape(), dtype)
                : backend.fromInts(values.toInts(), values.shape(), dtype);
    }

    /**
     * A new tensor holding {@code values} in {@code dtype}, laid out as {@code layout} (a view when
     * not contiguous; the storage it views is already released by the TCK). Owned by the caller.
     */
    protected final Tensor input(Ref values, DType dtype, InputLayout layout) {
        int rank = values.rank();
        if (layout == InputLayout.TRANSPOSED && rank >= 2) {
            int[] reverse = new int[rank];
            for (int i = 0; i < rank; i++) reverse[i] = rank - 1 - i;
            try (Tensor stored = input(values.transpose(reverse), dtype)) {
                return ops().transpose(stored, reverse);
            }
        }
        if (layout != InputLayout.CONTIGUOUS && rank >= 1) {
            Ref padded = padLastAxis(values, dtype);
            InputLayout inner = layout == InputLayout.SLICED_TRANSPOSED ? InputLayout.TRANSPOSED : InputLayout.CONTIGUOUS;
            try (Tensor stored = input(padded, dtype, inner)) {
                return ops().slice(stored, -1, 1, 1 + values.dim(-1));
            }
        }
        return input(values, dtype);
    }

    /** {@code values} with one sentinel before and two after each row of the last axis. */
    private static Ref padLastAxis(Ref values, DType dtype) {
        int rank = values.rank();
        int[] paddedDims = values.dims().clone();
        paddedDims[rank - 1] += 3;
        Ref padded = Ref.zeros(paddedDims).map(z -> dtype.isFloating() ? -77.0 : 7.0);
        for (int f = 0; f < values.size(); f++) {
            int[] idx = Ref.unravel(f, values.dims());
            idx[rank - 1] += 1;
            padded.values()[Ref.ravel(idx, paddedDims)] = values.values()[f];
        }
        return padded;
    }

    /** The tensor's values read back through {@code toFloats}, with its dims. */
    protected final Ref read(Tensor t) {
        backend.eval(t);
        float[] f = backend.toFloats(t);
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return new Ref(t.shape().dims(), d);
    }

    /**
     * Asserts that {@code call} throws {@link IllegalArgumentException} whose message names every
     * one of {@code shapes} (the api requires shape mismatches to name both shapes).
     */
    protected static void assertRefusedNaming(org.junit.jupiter.api.function.Executable call, Shape... shapes) {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, call);
        for (Shape shape : shapes) {
            org.junit.jupiter.api.Assertions.assertTrue(String.valueOf(e.getMessage()).contains(shape.toString()),
                    () -> "the message \"" + e.getMessage() + "\" does not name shape " + shape);
        }
    }

    /** Asserts the tensor's dtype and shape. */
    protected static void assertShape(String what, Tensor actual, DType dtype, int[] dims) {
        assertEquals(dtype, actual.dtype(), what + ": dtype");
        assertArrayEquals(dims, actual.shape().dims(), () -> what + ": expected shape " + Arrays.toString(dims)
                + ", found " + actual.shape());
    }

    /** Asserts dtype, shape and values within the class tolerance rule; {@code magnitude} may be null (all 0). */
    protected final void assertClose(String what, Tensor actual, DType dtype, Ref expected, double[] magnitude) {
        assertShape(what, actual, dtype, expected.dims());
        Ref got = read(actual);
        StringBuilder failures = new StringBuilder();
        int bad = 0;
        for (int i = 0; i < expected.size(); i++) {
            double r = expected.values()[i];
            double a = got.values()[i];
            double m = magnitude == null ? 0 : magnitude[i];
            double target = Numerics.round(r, dtype);
            // the result is rounded once to its dtype; underflow below f32's smallest normal is not an error
            double tol = RTOL * (Math.abs(r) + m) + Numerics.ulp(Math.max(Math.abs(r), Math.abs(a)), dtype) + Float.MIN_NORMAL;
            boolean ok = Double.isNaN(r) ? Double.isNaN(a)
                    : Double.isInfinite(target) ? a == target : Math.abs(a - target) <= tol;
            if (!ok && bad++ < 5) {
                failures.append("\n  at ").append(Arrays.toString(Ref.unravel(i, expected.dims())))
                        .append(": expected ").append(r).append(" (±").append((float) tol).append("), found ").append(a);
            }
        }
        if (bad > 0) {
            fail(what + ": " + bad + " of " + expected.size() + " elements of " + dtype + " " + expected.shape()
                    + " outside tolerance" + failures);
        }
    }

    /** Asserts that {@code actual} has {@code expected}'s dtype, shape and values bit for bit (raw bits, NaNs included). */
    protected final void assertSameBits(String what, Tensor expected, Tensor actual) {
        assertShape(what, actual, expected.dtype(), expected.shape().dims());
        backend.eval(expected, actual);
        float[] e = backend.toFloats(expected);
        float[] a = backend.toFloats(actual);
        for (int i = 0; i < e.length; i++) {
            if (Float.floatToRawIntBits(e[i]) != Float.floatToRawIntBits(a[i])) {
                fail(what + ": at " + Arrays.toString(Ref.unravel(i, expected.shape().dims())) + " expected " + e[i] + ", found " + a[i]);
            }
        }
    }

    /** Asserts dtype, shape and values within the tolerance rule of an {@link Expected} result. */
    protected final void assertClose(String what, Tensor actual, DType dtype, Expected expected) {
        assertClose(what, actual, dtype, expected.value(), expected.magnitude());
    }

    /** Asserts dtype, shape and values exactly equal to {@code expected} rounded to {@code dtype}. */
    protected final void assertExact(String what, Tensor actual, DType dtype, Ref expected) {
        assertShape(what, actual, dtype, expected.dims());
        if (dtype.isFloating()) {
            Ref got = read(actual);
            for (int i = 0; i < expected.size(); i++) {
                double want = Numerics.round(expected.values()[i], dtype);
                double found = got.values()[i];
                if (!(want == found || Double.isNaN(want) && Double.isNaN(found))) {
                    fail(what + ": at " + Arrays.toString(Ref.unravel(i, expected.dims())) + " of " + expected.shape()
                            + " expected " + want + ", found " + found);
                }
            }
        } else {
            backend.eval(actual);
            int[] got = backend.toInts(actual);
            int[] want = expected.toInts();
            for (int i = 0; i < want.length; i++) {
                if (want[i] != got[i]) {
                    fail(what + ": at " + Arrays.toString(Ref.unravel(i, expected.dims())) + " of " + expected.shape()
                            + " expected " + want[i] + ", found " + got[i]);
                }
            }
        }
    }
}
