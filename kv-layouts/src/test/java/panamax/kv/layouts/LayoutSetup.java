package panamax.kv.layouts;

import java.util.Map;
import java.util.TreeMap;

/**
 * One layout configuration a generated sequence runs against.
 *
 * @param layout  layout plugin id
 * @param params  its parameters
 * @param codec   the codec it stores
 * @param rows    rows of the first batch
 */
record LayoutSetup(String layout, Map<String, String> params, CodecChoice codec, int rows) {
    LayoutSetup {
        params = new TreeMap<>(params);
    }

    int window() {
        boolean ring = layout.equals("rotating") || "rotating".equals(params.get("storage"));
        return ring ? Integer.parseInt(params.get("window")) : 0;
    }

    int keep() {
        return params.containsKey("keep") ? Integer.parseInt(params.get("keep")) : 0;
    }

    /** Offset at which rows leave identity; Integer.MAX_VALUE when the layout stores the codec from the start. */
    int start() {
        return layout.equals("delayed") ? Integer.parseInt(params.get("start")) : 0;
    }

    /** The reference rule: may a query at q see the token at p? */
    boolean visible(int p, int q) {
        if (p < 0 || q < 0 || p > q) return false;
        int window = window();
        return window == 0 || p < keep() || q - p < window - keep();
    }

    @Override
    public String toString() {
        return layout + params + " over " + codec + ", " + rows + " rows";
    }
}
