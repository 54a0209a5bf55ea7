package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.model.ModelSpec;
import panamax.api.plan.ResolvedExecution;

/** The plan shows a mixture of experts' parameters in total and per token, and its resident against its per-token weights. */
class MixtureOfExpertsPlanTest {

    @Test
    void theQwen3MoePresetHasThirtyBillionParametersAndThreeActive() {
        ModelSpec m = Presets.get("qwen3-30b-a3b");
        assertEquals(30.5e9, m.parameters().total(), 0.1e9);
        assertEquals(3.3e9, m.parameters().activePerToken(), 0.1e9);
        assertEquals(m.parameters().total() * 2, m.weightBytes());
        assertEquals(m.parameters().activePerToken() * 2, m.parameters().activeWeightBytes());
    }

    @Test
    void planTextAndJsonShowTotalAndActiveParametersAndBothWeightFigures() {
        ModelSpec m = Presets.get("qwen3-30b-a3b");
        ResolvedExecution plan = Fakes.standardPlanner().resolve(Fakes.requirements(m, Fakes.scheme("identity", Map.of()), 4096, 0));
        String text = PlanText.render(plan, "built-in preset 'qwen3-30b-a3b'");
        assertTrue(text.contains("parameters") && text.contains("30.53 B") && text.contains("3.35 B") && text.contains("active per token"), text);
        assertTrue(text.contains("56.87 GiB resident (all experts), 6.25 GiB read per decoded token"), text);
        var json = PlanJson.tree(plan, "preset").get("model").get("parameters");
        assertEquals(m.parameters().total(), json.get("total").asLong());
        assertEquals(m.parameters().activePerToken(), json.get("activePerToken").asLong());

        String dense = PlanText.render(Fakes.standardPlanner().resolve(Fakes.requirements(Presets.get("1b"), Fakes.scheme("identity", Map.of()), 4096, 0)), "1b");
        assertTrue(dense.contains("all active per token") && dense.contains("all read per decoded token"), dense);
    }
}
