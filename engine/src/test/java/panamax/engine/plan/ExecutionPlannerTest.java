package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static panamax.engine.plan.Fakes.affine4;
import static panamax.engine.plan.Fakes.requirements;
import static panamax.engine.plan.Fakes.standardPlanner;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import panamax.api.error.InvalidParameterException;
import panamax.api.error.MemoryBudgetException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.LayerPlan;
import panamax.api.plan.Method;
import panamax.api.plan.Refusal;
import panamax.api.plan.ResolvedExecution;

class ExecutionPlannerTest {

    @Test
    void fourBitAffineOnThePresetStoresEveryLayerFullAndProjectsKvHeadsTimesCodecBytes() {
        ResolvedExecution plan = standardPlanner().resolve(requirements(Presets.get("1b"), affine4(), 0, 0));
        assertEquals("java", plan.backend().id());
        assertEquals(16, plan.layers().size());
        // 4-bit, group 64, head dim 64: 32 packed bytes + 2 scale + 2 bias bytes, for K and V, for 8 kv heads.
        long perLayer = 8L * 2 * (32 + 2 + 2);
        for (LayerPlan layer : plan.layers()) {
            assertEquals("full", layer.layout());
            assertEquals("affine", layer.codec());
            assertEquals(perLayer, layer.bytesPerToken());
            assertEquals(131072, layer.storedTokens());
        }
        assertEquals(16 * perLayer, plan.kvBytesPerToken());
        assertEquals(16 * perLayer * 131072, plan.projectedKvBytes());
        assertEquals(131072, plan.maxContext());
        assertTrue(plan.refusals().contains(new Refusal("backend mlx", "libmlxc.so not found on java.library.path")), plan.refusals().toString());
    }

    @Test
    void slidingWindowLayersGetARotatingLayoutWithTheirWindowAndNoKeptTokens() {
        ResolvedExecution plan = standardPlanner().resolve(requirements(Presets.get("gemma3-1b"), Fakes.scheme("identity", Map.of()), 0, 0));
        for (LayerPlan layer : plan.layers()) {
            boolean sliding = (layer.layer() + 1) % 6 != 0;
            assertEquals(sliding ? "rotating" : "full", layer.layout(), "layer " + layer.layer());
            if (sliding) {
                assertEquals(Map.of("window", "512", "keep", "0"), layer.layoutParams().values());
                assertEquals(512, layer.storedTokens());
            }
            // identity takes the model's bf16 activations: 256 features x 2 bytes, K and V, 1 kv head.
            assertEquals(256 * 2 * 2, layer.bytesPerToken());
            assertEquals("bf16", layer.codecParams().get("dtype"));
        }
    }

    @Test
    void maxKvSizeBoundsEveryLayerKeepingFourTokensAndMakesAnyBudgetThatHoldsTheWindowUnbounded() {
        KvScheme kv = new KvScheme("affine", Map.of("bits", "4", "group_size", "64"), OptionalInt.empty(), OptionalInt.of(4096), Optional.empty());
        ResolvedExecution plan = standardPlanner().resolve(requirements(Presets.get("1b"), kv, 0, 1L << 30));
        for (LayerPlan layer : plan.layers()) {
            assertEquals("rotating", layer.layout());
            assertEquals(Map.of("window", "4096", "keep", "4"), layer.layoutParams().values());
        }
        assertEquals(MemoryProjection.UNBOUNDED, plan.maxContext());
        assertTrue(PlanText.render(plan, "preset").contains("unbounded"));
    }

    @Test
    void quantizedKvStartWrapsTheStorageInADelayedLayoutThatStartsInIdentity() {
        KvScheme kv = new KvScheme("affine", Map.of("bits", "4", "group_size", "64"), OptionalInt.of(1000), OptionalInt.empty(), Optional.empty());
        var model = Fakes.model(List.of(LayerKvNeed.full(0, 8, 64), LayerKvNeed.sliding(1, 512, 8, 64)), 8192);
        ResolvedExecution plan = standardPlanner().resolve(requirements(model, kv, 0, 0));
        assertEquals("delayed", plan.layers().get(0).layout());
        assertEquals(Map.of("start", "1000", "storage", "full", "window", "0", "keep", "0"), plan.layers().get(0).layoutParams().values());
        assertEquals(Map.of("start", "1000", "storage", "rotating", "window", "512", "keep", "0"), plan.layers().get(1).layoutParams().values());
        assertTrue(plan.plugins().stream().anyMatch(p -> p.id().equals("identity")), "identity is used before the start");
        // Below the start every token is identity (bf16): 8 heads x 64 x 2 bytes x K,V.
        ResolvedExecution early = standardPlanner().resolve(requirements(model, kv, 500, 0));
        assertEquals(2 * 500L * 8 * 64 * 2 * 2, early.projectedKvBytes());
    }

    @Test
    void aCodecWithRotatedValuesIsRefusedOnLayoutsThatDoNotHostThemAndTheReasonNamesTheCapability() {
        var planner = Fakes.planner(Fakes.registry(List.of(Fakes.backend("java"), Fakes.rotated("tq"), Fakes.full(false), Fakes.rotating(false))));
        var e = assertThrows(UnsupportedCombinationException.class,
                () -> planner.resolve(requirements(Presets.get("1b"), Fakes.scheme("tq", Map.of()), 0, 0)));
        assertTrue(e.getMessage().contains("layer 0"), e.getMessage());
        assertTrue(e.reasons().stream().anyMatch(r -> r.contains("hostsRotatedValues")), e.reasons().toString());
    }

    @Test
    void aRotatedValuesCodecResolvesOnALayoutThatHostsThem() {
        var planner = Fakes.planner(Fakes.registry(List.of(Fakes.backend("java"), Fakes.rotated("tq"), Fakes.full(true))));
        ResolvedExecution plan = planner.resolve(requirements(Presets.get("1b"), Fakes.scheme("tq", Map.of()), 0, 0));
        assertEquals("full", plan.layers().getFirst().layout());
    }

    @Test
    void aMissingLayoutPluginIsARefusalNamingItsIdAndFailsWhenNothingElseFits() {
        var planner = Fakes.planner(Fakes.registry(List.of(Fakes.backend("java"), Fakes.identity(), Fakes.full(false))));
        var e = assertThrows(UnsupportedCombinationException.class,
                () -> planner.resolve(requirements(Presets.get("gemma3-1b"), Fakes.scheme("identity", Map.of()), 0, 0)));
        assertTrue(e.reasons().stream().anyMatch(r -> r.startsWith("layout rotating: not installed")), e.reasons().toString());
    }

    @Test
    void noLayoutPluginsAtAllIsAClearRefusalNotACrash() {
        var planner = Fakes.planner(Fakes.registry(List.of(Fakes.backend("java"), Fakes.affine())));
        var e = assertThrows(UnsupportedCombinationException.class, () -> planner.resolve(requirements(Presets.get("1b"), affine4(), 0, 0)));
        assertTrue(e.reasons().contains("layout full: not installed: no layout plugin with id 'full' was found (no layout plugins are installed)"),
                e.reasons().toString());
    }

    @Test
    void anUnknownCodecIsRefusedNamingTheInstalledOnes() {
        var e = assertThrows(UnsupportedCombinationException.class,
                () -> standardPlanner().resolve(requirements(Presets.get("1b"), Fakes.scheme("fp8", Map.of()), 0, 0)));
        assertTrue(e.getMessage().contains("codec fp8: not installed") && e.getMessage().contains("affine, identity"), e.getMessage());
    }

    @Test
    void aCodecThatCannotEncodeAHeadDimensionNamesTheLayer() {
        var model = Fakes.model(List.of(LayerKvNeed.full(0, 8, 64), LayerKvNeed.full(1, 8, 80)), 4096);
        var e = assertThrows(UnsupportedCombinationException.class, () -> standardPlanner().resolve(requirements(model, affine4(), 0, 0)));
        assertTrue(e.getMessage().contains("layer 1 (head dim 80)"), e.getMessage());
    }

    @Test
    void aCodecParameterOutsideItsDeclaredValuesIsAnInvalidParameterNamingIt() {
        var e = assertThrows(InvalidParameterException.class, () -> standardPlanner().resolve(
                requirements(Presets.get("1b"), Fakes.scheme("affine", Map.of("bits", "7")), 0, 0)));
        assertTrue(e.getMessage().contains("affine bits") && e.getMessage().contains("2, 3, 4, 5, 6, 8"), e.getMessage());
    }

    @Test
    void aRequestedBackendThatIsUnavailableFailsWithTheProvidersReason() {
        var req = new ExecutionRequirements(Presets.get("1b"), Optional.of("mlx"), affine4(), Batching.SERIAL, Method.AUTOREGRESSIVE, 1, 0, 0, false);
        var e = assertThrows(UnsupportedCombinationException.class, () -> standardPlanner().resolve(req));
        assertTrue(e.getMessage().contains("backend mlx: libmlxc.so not found"), e.getMessage());
    }

    @Test
    void withoutAPreferredBackendTheOthersAreTriedAlphabetically() {
        var planner = Fakes.planner(Fakes.registry(List.of(Fakes.unavailableBackend("mlx", "no gpu"), Fakes.backend("zeta"), Fakes.backend("cuda"),
                Fakes.identity(), Fakes.full(false))));
        ResolvedExecution plan = planner.resolve(requirements(Presets.get("1b"), Fakes.scheme("identity", Map.of()), 0, 0));
        assertEquals("cuda", plan.backend().id());
        assertEquals(List.of(new Refusal("backend mlx", "no gpu")), plan.refusals());
    }

    @Test
    void aBudgetGivesTheLongestContextWhoseBytesFitAndAnExplicitContextBeyondItFails() {
        long budget = 512L << 20;
        ResolvedExecution plan = standardPlanner().resolve(requirements(Presets.get("1b"), affine4(), 0, budget));
        long perToken = 16L * 8 * 2 * 36;
        assertEquals(budget / perToken, plan.maxContext());
        assertTrue(plan.projectedKvBytes() <= budget);
        assertThrows(MemoryBudgetException.class, () -> standardPlanner().resolve(requirements(Presets.get("1b"), affine4(), plan.maxContext() + 1, budget)));
    }

    @Test
    void slidingLayersStopGrowingSoOnlyFullLayersCountTowardsTheBudgetPastTheWindow() {
        long budget = 256L << 20;
        KvScheme identity = Fakes.scheme("identity", Map.of());
        ResolvedExecution plan = standardPlanner().resolve(requirements(Presets.get("gemma3-1b"), identity, 0, budget));
        long perToken = 1024; // identity bf16, head dim 256, 1 kv head, K and V
        long slidingPlateau = 22L * 512 * perToken; // 22 of the 26 layers slide over 512 tokens
        assertEquals((budget - slidingPlateau) / (4 * perToken), plan.maxContext());
        assertEquals(4 * perToken, plan.kvBytesPerToken(), "past the window only the 4 full layers grow");
        long max = plan.maxContext();
        assertTrue(standardPlanner().resolve(requirements(Presets.get("gemma3-1b"), identity, max, budget)).projectedKvBytes() <= budget);
        assertThrows(MemoryBudgetException.class, () -> standardPlanner().resolve(requirements(Presets.get("gemma3-1b"), identity, max + 1, budget)));
    }

    @Test
    void withNothingInstalledOneErrorListsTheMissingBackendCodecAndLayoutTogether() {
        var empty = Fakes.planner(Fakes.registry(List.of()));
        var e = assertThrows(UnsupportedCombinationException.class, () -> empty.resolve(requirements(Presets.get("1b"), affine4(), 0, 0)));
        assertTrue(e.getMessage().startsWith("cannot resolve a plan: no backend is available; codec 'affine' is not installed"), e.getMessage());
        assertEquals(List.of("backend: no backend plugin is installed",
                "codec affine: not installed: no codec plugin with id 'affine' was found (no codec plugins are installed)"), e.reasons());
        var codecOnly = Fakes.planner(Fakes.registry(List.of(Fakes.backend("java"), Fakes.affine())));
        var layoutsMissing = assertThrows(UnsupportedCombinationException.class,
                () -> codecOnly.resolve(requirements(Presets.get("1b"), affine4(), 0, 0)));
        assertTrue(layoutsMissing.getMessage().startsWith("cannot resolve a plan: no layout can hold layer 0 with codec affine:"), layoutsMissing.getMessage());
    }
}
