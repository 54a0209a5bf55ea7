package panamax.codec.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.kv.KvRole;
import panamax.api.kv.PlaneSpec;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.AttentionMask;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.layout.tck.LayoutHarness;
import panamax.layout.tck.LayoutSetup;
import panamax.layout.tck.LayoutTck;
import panamax.layout.tck.Sequences;
import panamax.layout.tck.StoredCodec;
import panamax.layout.tck.TckSeed;

/**
 * The codec conformance suite. A subclass names its provider and, optionally, the parameter sets
 * to check (the defaults otherwise); each set is checked at every head dimension of 32, 64, 80 and
 * 128 that its {@code shape} accepts, with keys and values arriving in f32, bf16 and f16:
 * <ul>
 *   <li>the provider declares a {@link ReconstructionBound} ({@link KvCodecProvider#reconstructionBound}),
 *       and every decoded vector of generated rows (Gaussian, all-equal, zero, one outlier) is within it;
 *   <li>the planes are the ones {@code shape} declares, so {@code bytesPerToken} is their real size;
 *   <li>attention on the planes equals float64 attention over the decoded cache within
 *       {@code 1e-3·max(1, max|v̂|)} per output element (f32 activations, masks none, causal and windowed);
 *   <li>encoding tokens in pieces gives planes bit-equal to encoding them at once;
 *   <li>every layout found with ServiceLoader hosts the codec under generated operation sequences
 *       (the layout TCK's harness, with the codec's own bound);
 *   <li>every tensor a codec creates is released: after each test the backend is back at its baseline.
 * </ul>
 * Runs on the {@code java} backend unless {@code -Dpanamax.test.backend=ID} names another.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class CodecTck {
    static final int[] HEAD_DIMS = {32, 64, 80, 128};
    static final DType[] ACTIVATIONS = {DType.F32, DType.BF16, DType.F16};
    private static final int HEADS = 2;

    private Backend backend;
    private long baseline;

    /** The codec under test. */
    protected abstract KvCodecProvider provider();

    /** The parameter sets to check; the codec's defaults unless overridden. */
    protected List<Map<String, String>> parameterSets() {
        return List.of(Map.of());
    }

    @BeforeAll
    void startBackend() {
        backend = LayoutTck.testBackend();
    }

    @AfterAll
    void stopBackend() {
        if (backend != null) backend.close();
    }

    @BeforeEach
    void recordBaseline() {
        baseline = backend.memoryStats().activeBytes();
    }

    @AfterEach
    void nothingLeaked() {
        assertEquals(baseline, backend.memoryStats().activeBytes(), "backend bytes after the test: the codec leaked tensors");
    }

    /** Every (params, head dim, activation) the codec accepts; at least one head dimension per parameter set. */
    List<CodecConfig> configs() {
        KvCodecProvider p = provider();
        List<CodecConfig> out = new ArrayList<>();
        for (Map<String, String> params : parameterSets()) {
            PluginParams resolved = PluginParams.of(params).resolve(p.id(), p.capabilities().params());
            int accepted = 0;
            for (int dim : HEAD_DIMS) {
                try {
                    p.shape(resolved, dim, DType.F32);
                } catch (InvalidParameterException e) {
                    continue;
                }
                accepted++;
                for (DType a : ACTIVATIONS) out.add(new CodecConfig(params, resolved, dim, a));
            }
            if (accepted == 0) fail(p.id() + " " + params + " accepts none of the head dimensions 32, 64, 80, 128");
        }
        return out;
    }

    private ReconstructionBound bound(CodecConfig c) {
        return provider().reconstructionBound(c.resolved(), c.headDim(), c.activation()).orElseThrow(() -> new AssertionError(
                "declare your bound: " + provider().getClass().getName() + " must override KvCodecProvider.reconstructionBound("
                        + "params, headDim, activationType) to return the largest relative L2 error its format allows per (token, head) "
                        + "vector, derived from its maths (e.g. half a quantization step), for " + c));
    }

    private KvCodec create(CodecConfig c, int heads) {
        return provider().create(c.resolved(), new CodecContext(backend, 3, heads, c.headDim(), c.activation(), 11));
    }

    @Test
    void everyConfigurationDeclaresItsReconstructionBound() {
        for (CodecConfig c : configs()) bound(c);
    }

    @Test
    void decodedVectorsStayWithinTheDeclaredBound() {
        List<CodecConfig> configs = configs();
        Gen<Vectors.Kind> kinds = Generate.pick(java.util.Arrays.asList(Vectors.Kind.GAUSSIAN, Vectors.Kind.ALL_EQUAL,
                Vectors.Kind.ZERO, Vectors.Kind.OUTLIER, null));
        TckSeed.qt().withExamples(Math.max(120, 4 * configs.size())).forAll(Generate.pick(configs), kinds, Generate.longRange(0, Long.MAX_VALUE))
                .checkAssert((c, kind, seed) -> roundTrip(c, kind, seed));
    }

    void roundTrip(CodecConfig c, Vectors.Kind kind, long seed) {
        ReconstructionBound bound = bound(c);
        int tokens = 3;
        Shape shape = Shape.of(2, HEADS, tokens, c.headDim());
        try (KvCodec codec = create(c, HEADS)) {
            for (KvRole role : KvRole.values()) {
                float[] drawn = Vectors.draw(seed + role.ordinal(), 2 * HEADS * tokens, c.headDim(), kind);
                try (Tensor x = backend.fromFloats(drawn, shape, c.activation())) {
                    float[] input = backend.toFloats(x); // as the activation dtype holds it
                    List<Tensor> planes = codec.encode(role, x);
                    try (Tensor decoded = codec.decode(role, planes)) {
                        assertEquals(shape, decoded.shape(), "decoded shape for " + c);
                        assertEquals(c.activation(), decoded.dtype(), "decoded dtype for " + c);
                        float[] got = backend.toFloats(decoded);
                        for (int v = 0; v < input.length / c.headDim(); v++) {
                            double err = 0;
                            double norm = 0;
                            for (int d = v * c.headDim(); d < (v + 1) * c.headDim(); d++) {
                                err += (got[d] - (double) input[d]) * (got[d] - (double) input[d]);
                                norm += input[d] * (double) input[d];
                            }
                            double allowed = bound.allowedError(role, Math.sqrt(norm), c.headDim());
                            if (!(Math.sqrt(err) <= allowed)) {
                                fail(role + " vector " + v + " (" + (kind == null ? "mixed" : kind) + " rows, seed " + seed + ") of "
                                        + provider().id() + " " + c + ": error " + Math.sqrt(err) + " for norm " + Math.sqrt(norm)
                                        + " (relative " + Math.sqrt(err / Math.max(norm, Double.MIN_NORMAL)) + "), above the declared "
                                        + bound + " = " + allowed);
                            }
                        }
                    } finally {
                        planes.forEach(Tensor::close);
                    }
                }
            }
        }
    }

    @Test
    void planesAreTheDeclaredOnesSoBytesPerTokenIsTheirRealSize() {
        for (CodecConfig c : configs()) {
            CodecShape declared = provider().shape(c.resolved(), c.headDim(), c.activation());
            int tokens = 5;
            try (KvCodec codec = create(c, HEADS)) {
                assertEquals(declared, codec.shape(), "the instance's shape equals the provider's for " + c);
                long bytes = 0;
                for (KvRole role : KvRole.values()) {
                    List<PlaneSpec> specs = role == KvRole.KEY ? declared.keyPlanes() : declared.valuePlanes();
                    float[] data = Vectors.draw(role.ordinal(), 2 * HEADS * tokens, c.headDim(), Vectors.Kind.GAUSSIAN);
                    try (Tensor x = backend.fromFloats(data, Shape.of(2, HEADS, tokens, c.headDim()), c.activation())) {
                        List<Tensor> planes = codec.encode(role, x);
                        try {
                            assertEquals(specs.size(), planes.size(), role + " planes of " + c + ": declared " + specs);
                            for (int i = 0; i < specs.size(); i++) {
                                PlaneSpec spec = specs.get(i);
                                Tensor p = planes.get(i);
                                assertEquals(Shape.of(2, HEADS, tokens, spec.width()), p.shape(), role + " plane " + spec.name() + " of " + c);
                                assertEquals(spec.dtype(), p.dtype(), role + " plane " + spec.name() + " dtype of " + c);
                                bytes += p.shape().size() * p.dtype().byteSize();
                            }
                        } finally {
                            planes.forEach(Tensor::close);
                        }
                    }
                }
                assertEquals(declared.bytesPerTokenPerHead(), bytes / (2L * HEADS * tokens),
                        "bytes per token per head: declared vs the planes' real bytes, for " + c);
            }
        }
    }

    @Test
    void attentionOnThePlanesEqualsFloat64AttentionOverTheDecodedCache() {
        List<CodecConfig> f32 = configs().stream().filter(c -> c.activation() == DType.F32).toList();
        TckSeed.qt().withExamples(Math.max(60, 4 * f32.size())).forAll(Generate.pick(f32), Generate.longRange(0, Long.MAX_VALUE))
                .checkAssert(this::attention);
    }

    private void attention(CodecConfig c, long seed) {
        Random r = new Random(seed);
        int b = 1 + r.nextInt(2);
        int hkv = 1 + r.nextInt(2);
        int hq = hkv * (1 + r.nextInt(2));
        int tq = 1 + r.nextInt(3);
        int tk = tq + r.nextInt(18);
        int d = c.headDim();
        AttentionMask mask = switch (r.nextInt(3)) {
            case 0 -> AttentionMask.NONE;
            case 1 -> AttentionMask.CAUSAL;
            default -> new AttentionMask.Causal(3);
        };
        float[] q = Vectors.draw(seed + 1, b * hq * tq, d, Vectors.Kind.GAUSSIAN);
        float[] k = Vectors.draw(seed + 2, b * hkv * tk, d, null);
        float[] v = Vectors.draw(seed + 3, b * hkv * tk, d, null);
        double scale = 1 / Math.sqrt(d);
        try (KvCodec codec = create(c, hkv);
             Tensor qt = backend.fromFloats(unitRows(q, d), Shape.of(b, hq, tq, d), DType.F32);
             Tensor kt = backend.fromFloats(k, Shape.of(b, hkv, tk, d), DType.F32);
             Tensor vt = backend.fromFloats(v, Shape.of(b, hkv, tk, d), DType.F32)) {
            List<Tensor> kp = codec.encode(KvRole.KEY, kt);
            List<Tensor> vp = codec.encode(KvRole.VALUE, vt);
            try (Tensor out = codec.attend(qt, kp, vp, scale, mask);
                 Tensor kd = codec.decode(KvRole.KEY, kp);
                 Tensor vd = codec.decode(KvRole.VALUE, vp)) {
                assertEquals(qt.shape(), out.shape(), "attention output shape for " + c);
                assertEquals(DType.F32, out.dtype(), "attention output dtype for " + c);
                float[] got = backend.toFloats(out);
                float[] keys = backend.toFloats(kd);
                float[] values = backend.toFloats(vd);
                double maxV = 1;
                for (float x : values) maxV = Math.max(maxV, Math.abs(x));
                double[] want = Float64Attention.attend(unitRows(q, d), keys, values, b, hq, hkv, tq, tk, d, scale, mask);
                for (int i = 0; i < want.length; i++) {
                    if (!(Math.abs(got[i] - want[i]) <= 1e-3 * maxV)) {
                        fail("attention on the planes of " + provider().id() + " " + c + " (seed " + seed + ", B " + b + ", Hq " + hq
                                + ", Hkv " + hkv + ", Tq " + tq + ", Tk " + tk + ", " + mask + "): element " + i + " is " + got[i]
                                + ", float64 attention over the decoded cache gives " + want[i] + " (tolerance " + 1e-3 * maxV + ")");
                    }
                }
            } finally {
                kp.forEach(Tensor::close);
                vp.forEach(Tensor::close);
            }
        }
    }

    /** Queries scaled to unit norm, so scores stay O(‖k‖/√d) at every key scale. */
    private static float[] unitRows(float[] q, int d) {
        float[] out = q.clone();
        for (int v = 0; v < q.length / d; v++) {
            double n = 0;
            for (int i = v * d; i < (v + 1) * d; i++) n += q[i] * (double) q[i];
            for (int i = v * d; i < (v + 1) * d; i++) out[i] = (float) (q[i] / Math.max(Math.sqrt(n), 1e-30));
        }
        return out;
    }

    @Test
    void encodingTokensInPiecesGivesTheSamePlanesAsEncodingThemAtOnce() {
        List<CodecConfig> configs = configs();
        TckSeed.qt().withExamples(Math.max(40, 2 * configs.size())).forAll(Generate.pick(configs), Generate.longRange(0, Long.MAX_VALUE))
                .checkAssert(this::pieces);
    }

    void pieces(CodecConfig c, long seed) {
        Random r = new Random(seed);
        int tokens = 2 + r.nextInt(8);
        int split = 1 + r.nextInt(tokens - 1);
        var ops = backend.ops();
        float[] data = Vectors.draw(seed, 2 * HEADS * tokens, c.headDim(), null);
        try (KvCodec codec = create(c, HEADS);
             Tensor x = backend.fromFloats(data, Shape.of(2, HEADS, tokens, c.headDim()), c.activation());
             Tensor first = ops.slice(x, 2, 0, split);
             Tensor rest = ops.slice(x, 2, split, tokens)) {
            for (KvRole role : KvRole.values()) {
                List<Tensor> whole = codec.encode(role, x);
                List<Tensor> a = codec.encode(role, first);
                List<Tensor> bPlanes = codec.encode(role, rest);
                try {
                    for (int i = 0; i < whole.size(); i++) {
                        try (Tensor joined = ops.concat(List.of(a.get(i), bPlanes.get(i)), 2)) {
                            int[] once = bits(whole.get(i));
                            int[] inPieces = bits(joined);
                            int at = java.util.Arrays.mismatch(once, inPieces);
                            if (at >= 0) {
                                fail(role + " plane " + i + " of " + provider().id() + " " + c + ": tokens encoded as " + split + " + "
                                        + (tokens - split) + " differ from the " + tokens + " encoded at once (seed " + seed + "), first at element "
                                        + at + " of " + whole.get(i).shape() + ": " + describe(whole.get(i), once[at]) + " at once, "
                                        + describe(whole.get(i), inPieces[at]) + " in pieces");
                            }
                        }
                    }
                } finally {
                    Stream.of(whole, a, bPlanes).flatMap(List::stream).forEach(Tensor::close);
                }
            }
        }
    }

    private static String describe(Tensor plane, int bits) {
        return plane.dtype().isFloating() ? Float.intBitsToFloat(bits) + " (0x" + Integer.toHexString(bits) + ")" : "0x" + Integer.toHexString(bits);
    }

    /** The plane's elements as bit patterns (floats widened exactly to f32). */
    private int[] bits(Tensor t) {
        if (!t.dtype().isFloating()) return backend.toInts(t);
        float[] f = backend.toFloats(t);
        int[] out = new int[f.length];
        for (int i = 0; i < f.length; i++) out[i] = Float.floatToRawIntBits(f[i]);
        return out;
    }

    @Test
    void closingTheCodecReleasesEveryTensorItHeld() {
        for (CodecConfig c : configs()) {
            long before = backend.memoryStats().activeBytes();
            create(c, HEADS).close();
            assertEquals(before, backend.memoryStats().activeBytes(), "backend bytes after closing a " + provider().id() + " " + c);
        }
    }

    /** Each layout found with ServiceLoader stores the codec through generated operation sequences. */
    @TestFactory
    Stream<DynamicTest> everyLayoutHostsTheCodec() {
        List<KvLayoutProvider> layouts = new ArrayList<>();
        ServiceLoader.load(KvLayoutProvider.class).forEach(layouts::add);
        assertFalse(layouts.isEmpty(), "no KvLayoutProvider on the class path: add panamax-kv-layouts");
        return layouts.stream().map(layout -> DynamicTest.dynamicTest("hosted by " + layout.id(), () -> host(layout)));
    }

    private void host(KvLayoutProvider layout) {
        assumeTrue(HostingCases.known(layout.id()), "no reference cases for layout " + layout.id()
                + "; its own layout TCK covers it with the TCK's codecs");
        boolean rotated = provider().capabilities().rotatedValues();
        assumeTrue(!rotated || layout.capabilities().hostsRotatedValues(), provider().id()
                + " declares rotatedValues and layout " + layout.id() + " does not host them (the planner refuses the pair)");
        // each parameter set at the smallest head dimension it accepts, f32 activations
        List<Hosted> hosted = new ArrayList<>();
        java.util.Set<Map<String, String>> seen = new java.util.HashSet<>();
        for (CodecConfig c : configs()) {
            if (c.activation() == DType.F32 && seen.add(c.params())) {
                hosted.add(new Hosted(new StoredCodec(provider(), c.params(), bound(c)), c.headDim()));
            }
        }
        var setups = HostingCases.of(layout.id()).zip(Generate.pick(hosted), Generate.range(1, 2),
                (lc, h, rows) -> new LayoutSetup(lc, h.codec(), rows, h.headDim()));
        TckSeed.qt().withExamples(30).forAll(setups, Sequences.sequences(Sequences.Kind.declaredBy(layout.capabilities()), 8))
                .checkAssert((setup, ops) -> new LayoutHarness(backend, layout, setup, (l, held) -> { }).runAndClose(ops));
    }

    private record Hosted(StoredCodec codec, int headDim) {
    }
}
