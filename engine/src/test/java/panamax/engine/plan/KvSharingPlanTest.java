package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static panamax.engine.plan.Fakes.requirements;
import static panamax.engine.plan.Fakes.standardPlanner;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.model.LayerKvNeed;
import panamax.api.plan.ResolvedExecution;

/** Plans of models whose last layers read an earlier layer's KV (Gemma 3n's layout of donors). */
class KvSharingPlanTest {
    /** sliding, full, sliding, then two borrowers: 3 reads layer 2 (sliding), 4 reads layer 1 (full). */
    private static final List<LayerKvNeed> SHARED = List.of(
            LayerKvNeed.sliding(0, 16, 2, 64), LayerKvNeed.full(1, 2, 64), LayerKvNeed.sliding(2, 16, 2, 64),
            new LayerKvNeed(3, 16, 2, 64, 2), new LayerKvNeed(4, 0, 2, 64, 1));

    private static List<LayerKvNeed> unshared() {
        return SHARED.stream().map(n -> new LayerKvNeed(n.layer(), n.window(), n.kvHeads(), n.headDim(), -1)).toList();
    }

    private static ResolvedExecution plan(List<LayerKvNeed> layers) {
        return standardPlanner().resolve(requirements(Fakes.model(layers, 1024), Fakes.scheme("identity", Map.of()), 1000, 0));
    }

    @Test
    void borrowersCostNothingAndTheProjectionShrinksByExactlyWhatTheyWouldHold() {
        ResolvedExecution shared = plan(SHARED), own = plan(unshared());
        // identity on bf16 activations: 64 features x 2 bytes, K and V, 2 kv heads
        long perToken = 64 * 2 * 2 * 2;
        assertEquals(0, shared.layers().get(3).bytesPerToken());
        assertEquals(0, shared.layers().get(4).storedTokens());
        long saved = perToken * 16 + perToken * 1000;
        assertEquals(own.projectedKvBytes() - saved, shared.projectedKvBytes());
        KvSharing sharing = KvSharing.of(shared);
        assertEquals(Map.of(3, 2, 4, 1), sharing.borrowers());
        assertEquals(saved, sharing.savedBytes());
        assertEquals(List.of(4), sharing.borrowersOf(1));
        assertFalse(KvSharing.of(own).any());
    }

    @Test
    void thePlanTextNamesDonorsBorrowersAndTheSaving() {
        String text = PlanText.render(plan(SHARED), "test");
        assertTrue(text.contains("reads layer 2's cache"), text);
        assertTrue(text.contains("reads layer 1's cache"), text);
        assertTrue(text.contains("full attention; lends its KV to layer 4"), text);
        assertTrue(text.contains("sliding window 16; lends its KV to layer 3"), text);
        long saved = 64 * 2 * 2 * 2 * (16 + 1000);
        assertTrue(text.contains("kv sharing      layer 3 reads layer 2's KV, layer 4 layer 1's; they store none: " + ByteSize.grouped(saved) + " bytes"), text);
        assertFalse(PlanText.render(plan(unshared()), "test").contains("kv sharing"));
    }

    @Test
    void thePlanJsonCarriesEachLayersDonorAndTheSaving() {
        String json = PlanJson.render(plan(SHARED), "test");
        assertTrue(json.contains("\"kvDonor\" : 2"), json);
        assertTrue(json.contains("\"kvDonor\" : null"), json);
        assertTrue(json.contains("\"kvSharingSavedBytes\" : " + 64 * 2 * 2 * 2 * (16 + 1000)), json);
    }

    @Test
    void theGemma3nPresetLendsLayers18And19ToTheLastTen() {
        ResolvedExecution plan = standardPlanner().resolve(requirements(Presets.get("gemma3n-e2b"), Fakes.scheme("identity", Map.of()), 32768, 0));
        KvSharing sharing = KvSharing.of(plan);
        assertEquals(10, sharing.borrowers().size());
        assertEquals(List.of(20, 21, 22, 23, 25, 26, 27, 28), sharing.borrowersOf(18));
        assertEquals(List.of(24, 29), sharing.borrowersOf(19));
        // bf16 identity: 2 kv heads x 256 features x 2 bytes, K and V; 8 sliding borrowers keep 512 tokens, 2 full ones 32,768
        long perToken = 2 * 256 * 2 * 2;
        assertEquals(perToken * (8 * 512 + 2 * 32768), sharing.savedBytes());
        String text = PlanText.render(plan, "preset");
        assertTrue(text.contains("layers 20-23,25-28 read layer 18's KV, layers 24,29 layer 19's; they store none: "), text);
    }
}
