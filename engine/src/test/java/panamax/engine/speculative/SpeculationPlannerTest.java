package panamax.engine.speculative;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import panamax.api.error.InvalidParameterException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.engine.draft.DraftModelDrafterProvider;
import panamax.engine.draft.NgramDrafterProvider;
import panamax.engine.plugins.DiscoveredPlugin;
import panamax.engine.plugins.PluginKind;
import panamax.engine.plugins.PluginRegistry;

class SpeculationPlannerTest {
    private static final SpeculationPlanner PLANNER = new SpeculationPlanner(PluginRegistry.of(List.of(
            DiscoveredPlugin.describe(PluginKind.DRAFTER, "ngram", new NgramDrafterProvider(), "test"),
            DiscoveredPlugin.describe(PluginKind.DRAFTER, "draft-model", new DraftModelDrafterProvider(), "test")), List.of()));

    private static SpeculationRequest request(String drafter, Path model, Integer k, Map<String, String> params) {
        return new SpeculationRequest(Optional.ofNullable(drafter), Optional.ofNullable(model), k == null ? OptionalInt.empty() : OptionalInt.of(k), params);
    }

    @Test
    void nothingAskedPlansNothing() {
        assertTrue(PLANNER.resolve(SpeculationRequest.none()).isEmpty());
    }

    @Test
    void ngramByIdTakesItsDefaultsAndRecordsTheOtherDrafterAsRefused() {
        SpeculationPlan plan = PLANNER.resolve(request("ngram", null, null, Map.of("ngram_max", "4"))).orElseThrow();
        assertEquals("ngram", plan.drafter().id());
        // no count given: the drafter's default (4) starts a per-row budget that may grow to 4x
        assertEquals(new DraftLength(4, 16), plan.draftLength());
        assertEquals(16, plan.draftTokens());
        assertTrue(plan.describe().getFirst().contains("draft length per row from 4"), plan.describe().toString());
        assertEquals("4", plan.params().get("ngram_max"));
        assertEquals("2", plan.params().get("ngram_min"));
        assertEquals("drafter draft-model", plan.refusals().getFirst().option());
        assertTrue(plan.describe().getFirst().contains("asked for by id"), plan.describe().toString());
    }

    @Test
    void aDraftModelAloneChoosesTheDrafterThatDeclaresOne() {
        SpeculationPlan plan = PLANNER.resolve(request(null, Path.of("small"), 5, Map.of())).orElseThrow();
        assertEquals("draft-model", plan.drafter().id());
        assertEquals(DraftLength.fixed(5), plan.draftLength()); // a count given is honoured exactly
        assertEquals(5, plan.draftTokens());
        assertTrue(plan.describe().getFirst().contains("5 draft tokens per step"), plan.describe().toString());
        assertTrue(plan.reason().contains("declares needsDraftModel"), plan.reason());
        assertTrue(plan.refusals().getFirst().reason().contains("declares no draft model"), plan.refusals().toString());
    }

    @Test
    void aDraftModelWithoutACountKeepsItsDeclaredCountFixed() {
        // each drafted token costs a draft-model pass, so its length does not grow with acceptance
        SpeculationPlan plan = PLANNER.resolve(request(null, Path.of("small"), null, Map.of())).orElseThrow();
        assertEquals(DraftLength.fixed(3), plan.draftLength());
    }

    @Test
    void mismatchedOrMissingDraftersAreRefusedWithTheirReason() {
        var unknown = assertThrows(UnsupportedCombinationException.class, () -> PLANNER.resolve(request("medusa", null, null, Map.of())));
        assertTrue(unknown.getMessage().contains("draft-model, ngram"), unknown.getMessage());
        var needsModel = assertThrows(UnsupportedCombinationException.class, () -> PLANNER.resolve(request("draft-model", null, null, Map.of())));
        assertTrue(needsModel.getMessage().contains("--draft-model DIR"), needsModel.getMessage());
        var noModel = assertThrows(UnsupportedCombinationException.class, () -> PLANNER.resolve(request("ngram", Path.of("x"), null, Map.of())));
        assertTrue(noModel.getMessage().contains("uses no draft model"), noModel.getMessage());
        assertThrows(InvalidParameterException.class, () -> PLANNER.resolve(request("ngram", null, null, Map.of("ngram_max", "9"))));
        assertThrows(InvalidParameterException.class, () -> PLANNER.resolve(request("draft-model", Path.of("x"), null, Map.of("ngram_max", "2"))));
        assertThrows(InvalidParameterException.class, () -> request("ngram", null, 0, Map.of()));
    }

    @Test
    void aRowAskingForLogprobsIsRefusedSpeculationWithAReason() {
        assertTrue(SpeculationPlanner.rowRefusal(false, false).isEmpty());
        assertTrue(SpeculationPlanner.rowRefusal(true, false).orElseThrow().startsWith("logprobs requested"));
        assertTrue(SpeculationPlanner.rowRefusal(false, true).orElseThrow().startsWith("output grammar"));
    }
}
