package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.api.kv.KvLayout;
import panamax.api.model.KvState;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.LoadOptions;
import panamax.api.model.LogitSelection;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.Method;
import panamax.api.plan.ResolvedExecution;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.engine.parity.ParityReport;
import panamax.engine.parity.ParityRun;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.runtime.LayerCaches;
import panamax.engine.wiring.Engine;

/**
 * Gemma 3n's cross-layer KV sharing on {@code gemma3n-tiny} (layers 4 and 5 read layers 3 and 2):
 * borrowing layers are planned and allocated no storage, the plan's projection is smaller by
 * exactly their bytes, and their attention reads the donor's cache through its capture and nothing
 * else — in every codec and layout that can hold the model, and through speculative rollback.
 */
class Gemma3nKvSharingTest {
    private static final int CONTEXT = 64;
    private static PluginRegistry registry;
    private static Engine engine;
    private static ModelPlugin plugin;
    private static Backend backend;
    private static RuntimeModel model;

    @BeforeAll
    static void load() {
        registry = PluginRegistry.discover(Optional.empty());
        engine = Engine.start(registry);
        plugin = registry.models().stream().filter(p -> p.id().equals("gemma3n")).findFirst().orElseThrow().provider();
        backend = registry.backends().stream().filter(p -> p.id().equals(FixtureParityTest.backend())).findFirst().orElseThrow()
                .provider().create(BackendOptions.defaults());
        model = plugin.load(Gemma3nParityTest.fixture(), backend, LoadOptions.defaults());
    }

    @AfterAll
    static void close() {
        model.close();
        backend.close();
    }

    private static ResolvedExecution plan(ModelSpec spec, KvScheme kv, int rows) {
        return engine.planner().resolve(new ExecutionRequirements(spec, Optional.of(backend.name()), kv, Batching.SERIAL,
                Method.AUTOREGRESSIVE, rows, CONTEXT, 0, false));
    }

    /** The same model as if every layer computed its own KV. */
    private static ModelSpec withoutSharing(ModelSpec spec) {
        List<LayerKvNeed> own = spec.layers().stream().map(n -> new LayerKvNeed(n.layer(), n.window(), n.kvHeads(), n.headDim(), -1)).toList();
        return new ModelSpec(spec.name(), spec.architecture(), own, spec.activationType(), spec.weightBytes(), spec.vocabSize(), spec.maxPositions());
    }

    @Test
    void theLastTwoLayersBorrowFromTheLastEarlierLayerOfTheirType() {
        List<LayerKvNeed> needs = plugin.describe(Gemma3nParityTest.fixture()).layers();
        int[] donors = needs.stream().mapToInt(LayerKvNeed::donor).toArray();
        // layer types: sliding, sliding, full, sliding, sliding (shared), full (shared)
        assertArrayEquals(new int[]{-1, -1, -1, -1, 3, 2}, donors);
        assertEquals(needs.get(3).window(), needs.get(4).window(), "a borrower has its donor's attention type");
        assertEquals(needs.get(2).window(), needs.get(5).window(), "a borrower has its donor's attention type");
    }

    @Test
    void borrowingLayersAreAllocatedNothingAndThePlanCountsWhatThatSaves() {
        ModelSpec spec = model.spec();
        int rows = 2;
        ResolvedExecution shared = plan(spec, KvScheme.identity(), rows);
        ResolvedExecution unshared = plan(withoutSharing(spec), KvScheme.identity(), rows);
        long saved = 0;
        for (int i : new int[]{4, 5}) {
            LayerPlan p = shared.layers().get(i);
            assertEquals(0, p.bytesPerToken(), "layer " + i + " bytes per token");
            assertEquals(0, p.storedTokens(), "layer " + i + " stored tokens");
            assertTrue(p.reason().contains("reads layer " + (i == 4 ? 3 : 2)), p.reason());
            LayerPlan own = unshared.layers().get(i);
            assertTrue(own.bytesPerToken() > 0);
            saved += own.bytesPerToken() * own.storedTokens() * rows;
        }
        assertEquals(unshared.projectedKvBytes() - saved, shared.projectedKvBytes(), "projection without the borrowers' bytes");
        // identity f32 KV: K and V of 2 heads × 16 features × 4 bytes per layer that owns a cache
        long perLayer = 2L * 2 * 16 * 4;
        try (LayerCaches caches = KvStateFactory.of(registry).create(shared, backend, rows);
             LayerCaches own = KvStateFactory.of(registry).create(unshared, backend, rows)) {
            assertSame(caches.layer(3), caches.layer(4));
            assertSame(caches.layer(2), caches.layer(5));
            assertEquals(4, caches.distinctLayouts().size());
            assertEquals(rows * 4 * perLayer, caches.bytesPerToken());
            assertEquals(6, own.distinctLayouts().size());
            assertEquals(rows * 6 * perLayer, own.bytesPerToken());
        }
    }

    /** A prompt and greedy steps, the logits of every step (prefill's last position first). */
    private static List<float[]> decode(KvState state, int[] prompt, int[] steps, Runnable beforeEachStep) {
        List<float[]> out = new ArrayList<>();
        beforeEachStep.run();
        out.add(logits(state, prompt));
        for (int id : steps) {
            beforeEachStep.run();
            out.add(logits(state, new int[]{id}));
        }
        return out;
    }

    private static float[] logits(KvState state, int[] ids) {
        try (Tensor in = backend.fromInts(ids, Shape.of(1, ids.length), DType.I32);
             Tensor hidden = model.graph().forwardHidden(in, state);
             Tensor logits = model.graph().projectLogits(hidden, LogitSelection.LAST)) {
            return backend.toFloats(logits);
        }
    }

    private static KvState state(IntFunction<KvLayout> layer) {
        return new KvState() {
            @Override
            public KvLayout layer(int i) {
                return layer.apply(i);
            }

            @Override
            public int layers() {
                return model.spec().layers().size();
            }
        };
    }

    /** {@code real} in every respect except that {@code capture()} is {@code decoy}'s. */
    private static KvLayout capturing(KvLayout real, KvLayout decoy) {
        return (KvLayout) Proxy.newProxyInstance(KvLayout.class.getClassLoader(), new Class<?>[]{KvLayout.class}, (p, method, args) -> {
            try {
                return method.getName().equals("capture") ? decoy.capture() : method.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static final int[] PROMPT = {17, 300, 41, 9, 222, 5, 87, 150, 61, 480, 33, 7, 198, 264, 12, 99, 350, 3, 71, 400};
    private static final int[] OTHER = {260, 8, 411, 97, 14, 333, 201, 5, 66, 128, 490, 21, 303, 44, 170, 6, 255, 88, 39, 10};
    private static final int[] STEPS = {42, 7, 300, 11};

    @Test
    void borrowersReadTheDonorsCaptureAndNothingOfTheirOwn() {
        ResolvedExecution shared = plan(model.spec(), KvScheme.identity(), 1);
        KvStateFactory factory = KvStateFactory.of(registry);
        List<float[]> straight;
        try (LayerCaches caches = factory.create(shared, backend, 1)) {
            straight = decode(caches, PROMPT, STEPS, () -> { });
        }
        // borrowers handed slots of their own: the graph must neither fill nor read them
        try (LayerCaches caches = factory.create(shared, backend, 1);
             LayerCaches spare = factory.create(plan(withoutSharing(model.spec()), KvScheme.identity(), 1), backend, 1)) {
            KvState separate = state(i -> model.spec().layers().get(i).hasDonor() ? spare.layer(i) : caches.layer(i));
            List<float[]> result = decode(separate, PROMPT, STEPS, () -> { });
            for (int s = 0; s < straight.size(); s++) assertArrayEquals(straight.get(s), result.get(s), "step " + s);
            for (int i : new int[]{4, 5}) {
                assertNotSame(caches.layer(i), spare.layer(i));
                assertArrayEquals(new int[]{0}, spare.layer(i).offsets(), "layer " + i + "'s own slot stays empty");
            }
        }
        // donors whose capture shows another prompt's KV (same positions): only the borrowers see it, and the logits move
        try (LayerCaches caches = factory.create(shared, backend, 1);
             LayerCaches decoy = factory.create(shared, backend, 1)) {
            KvState swapped = state(i -> i == 2 || i == 3 ? capturing(caches.layer(i), decoy.layer(i)) : caches.layer(i));
            int[] step = {0};
            // the decoy runs the other prompt in lockstep, so its capture has the same columns and positions
            List<float[]> result = decode(swapped, PROMPT, STEPS, () -> {
                logits(decoy, step[0] == 0 ? OTHER : new int[]{STEPS[step[0] - 1]});
                step[0]++;
            });
            double moved = 0;
            for (int s = 0; s < straight.size(); s++) {
                for (int v = 0; v < straight.get(s).length; v++) moved = Math.max(moved, Math.abs(straight.get(s)[v] - result.get(s)[v]));
            }
            assertTrue(moved > 1e-2, "logits moved by only " + moved + " when the borrowers read another prompt's KV");
        }
    }

    @Test
    void aSpeculativeRollbackRestoresTheDonorsAndSoTheBorrowers() {
        ResolvedExecution shared = plan(model.spec(), KvScheme.identity(), 1);
        try (LayerCaches straight = KvStateFactory.of(registry).create(shared, backend, 1);
             LayerCaches rolled = KvStateFactory.of(registry).create(shared, backend, 1)) {
            List<float[]> want = decode(straight, PROMPT, STEPS, () -> { });
            logits(rolled, PROMPT);
            logits(rolled, new int[]{STEPS[0]});
            rolled.distinctLayouts().forEach(KvLayout::beginRound);
            logits(rolled, new int[]{STEPS[1], 500, 501}); // a draft: one right token, two wrong
            rolled.distinctLayouts().forEach(l -> l.rollback(new int[]{1}));
            float[] third = logits(rolled, new int[]{STEPS[2]});
            float[] fourth = logits(rolled, new int[]{STEPS[3]});
            assertClose(want.get(3), third, 1e-5, "after the rollback");
            assertClose(want.get(4), fourth, 1e-5, "one step later");
        }
    }

    /**
     * Codecs and layouts that can hold head_dim 16 (affine groups start at 32): borrowers are planned
     * and allocated nothing, and the model still tracks its reference (4-bit TurboQuant at head_dim 16
     * moves logits by ~2; a 12-token --max-kv-size window changes the full layers), deciding most greedy
     * tokens alike.
     */
    @Test
    void sharingHoldsInEveryCodecAndLayoutThatFitsTheModel() {
        Path dir = Gemma3nParityTest.fixture();
        Map<String, String> tq = Map.of("key_bits", "4", "value_bits", "4");
        List<KvScheme> schemes = List.of(
                new KvScheme("turboquant", tq, OptionalInt.empty(), OptionalInt.empty(), Optional.empty()),
                new KvScheme("turboquant", tq, OptionalInt.of(10), OptionalInt.empty(), Optional.empty()),
                new KvScheme("identity", Map.of(), OptionalInt.empty(), OptionalInt.of(12), Optional.empty()));
        for (KvScheme kv : schemes) {
            ResolvedExecution plan = plan(model.spec(), kv, 1);
            for (int i : new int[]{4, 5}) assertEquals(0, plan.layers().get(i).bytesPerToken(), kv + ": layer " + i);
            try (LayerCaches caches = KvStateFactory.of(registry).create(plan, backend, 1)) {
                assertEquals(4, caches.distinctLayouts().size(), kv.toString());
                assertSame(caches.layer(3), caches.layer(4), kv.toString());
            }
            ParityReport report = ParityRun.run(registry, dir, dir.resolve("reference.safetensors"), kv, Optional.of(backend.name()));
            System.out.println("gemma3n-tiny " + kv + " " + report.toJson());
            assertTrue(Double.isFinite(report.maxAbsDiff()) && report.maxAbsDiff() < 10, kv + ": " + report.toJson());
            assertTrue(report.greedyMatch() >= 0.5, kv + ": " + report.toJson());
        }
    }

    private static void assertClose(float[] want, float[] got, double tolerance, String what) {
        double max = 0;
        for (int i = 0; i < want.length; i++) max = Math.max(max, Math.abs(want[i] - got[i]));
        assertTrue(max <= tolerance, what + ": max |Δlogit| " + max);
    }
}
