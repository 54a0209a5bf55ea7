package panamax.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.plan.ResolvedExecution;

class LayerGroupsTest {
    @Test
    void consecutiveAndScatteredLayersFoldIntoRanges() {
        assertEquals("0-2,5,7-8", LayerGroups.ranges(new int[] {0, 1, 2, 5, 7, 8}));
        assertEquals("3", LayerGroups.ranges(new int[] {3}));
    }

    @Test
    void gemmaShapedPlansPrintTwoGroupsSlidingAndFull() {
        ResolvedExecution plan = Fakes.standardPlanner().resolve(Fakes.requirements(Presets.get("gemma3-1b"), Fakes.scheme("identity", Map.of()), 0, 0));
        var groups = LayerGroups.of(plan.layers());
        assertEquals(2, groups.size());
        assertEquals("0-4,6-10,12-16,18-22,24-25", groups.get(0).label());
        assertEquals("5,11,17,23", groups.get(1).label());
        assertEquals(22, groups.get(0).layers());
    }
}
