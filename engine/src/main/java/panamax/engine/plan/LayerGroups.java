package panamax.engine.plan;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import panamax.api.kv.PluginParams;
import panamax.api.plan.LayerPlan;

/**
 * Layers with identical plans folded into one line, labelled by their index ranges, e.g.
 * {@code 0-4,6-10} — so a 32-layer model of one kind prints one line, not 32.
 *
 * @param label  the layer indices, as ranges
 * @param layers how many layers the group holds
 * @param plan   the plan of the group's first layer (all members equal it except for the index)
 */
public record LayerGroups(String label, int layers, LayerPlan plan) {

    /** Groups in order of their first layer. */
    public static List<LayerGroups> of(List<LayerPlan> plans) {
        Map<Key, List<LayerPlan>> groups = new LinkedHashMap<>();
        for (LayerPlan p : plans) groups.computeIfAbsent(Key.of(p), k -> new ArrayList<>()).add(p);
        List<LayerGroups> out = new ArrayList<>();
        groups.values().forEach(g -> out.add(new LayerGroups(ranges(g.stream().mapToInt(LayerPlan::layer).toArray()), g.size(), g.getFirst())));
        return out;
    }

    private record Key(String layout, PluginParams layoutParams, String codec, PluginParams codecParams,
                       long bytesPerToken, long storedTokens, String reason) {
        static Key of(LayerPlan p) {
            return new Key(p.layout(), p.layoutParams(), p.codec(), p.codecParams(), p.bytesPerToken(), p.storedTokens(),
                    Objects.toString(p.reason()));
        }
    }

    /** {@code [0,1,2,5,7,8]} as {@code 0-2,5,7-8}. */
    static String ranges(int[] sortedLayers) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < sortedLayers.length) {
            int j = i;
            while (j + 1 < sortedLayers.length && sortedLayers[j + 1] == sortedLayers[j] + 1) j++;
            if (!sb.isEmpty()) sb.append(',');
            sb.append(sortedLayers[i]);
            if (j > i) sb.append('-').append(sortedLayers[j]);
            i = j + 1;
        }
        return sb.toString();
    }
}
