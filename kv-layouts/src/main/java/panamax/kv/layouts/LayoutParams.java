package panamax.kv.layouts;

import panamax.api.error.InvalidParameterException;
import panamax.api.kv.LayoutContext;
import panamax.api.kv.ParamSpec;
import panamax.api.kv.PluginParams;
import java.util.List;

/** Parameter declarations and checks shared by the layout providers, and the one place layouts are built. */
final class LayoutParams {
    static final ParamSpec WINDOW = new ParamSpec("window",
            "tokens each query sees (the ring size); sliding layers use their window", List.of(), "4096");
    static final ParamSpec KEEP = new ParamSpec("keep",
            "leading tokens never evicted (attention sinks); --max-kv-size uses 4", List.of(), "0");
    static final ParamSpec START = new ParamSpec("start",
            "offset at which a row's history is re-encoded into the codec (mlx-lm's --quantized-kv-start)", List.of(), "5000");
    static final ParamSpec STORAGE = new ParamSpec("storage",
            "how rows are kept: every token (full) or a ring (rotating, with window and keep)", List.of("full", "rotating"), "full");

    private LayoutParams() {
    }

    /** The retention a rotating storage asks for, checked: {@code 0 <= keep < window}. */
    static Retention ring(String plugin, PluginParams params) {
        int window = params.getInt(WINDOW.name());
        int keep = params.getInt(KEEP.name());
        if (window <= 0) throw new InvalidParameterException(plugin + " window", window, "a positive integer");
        if (keep < 0 || keep >= window) {
            throw new InvalidParameterException(plugin + " keep", keep, "0 to " + (window - 1) + " (less than window " + window + ")");
        }
        return new Retention(window, keep);
    }

    /** The start of a delayed layout, checked to be non-negative. */
    static int start(String plugin, PluginParams params) {
        int start = params.getInt(START.name());
        if (start < 0) throw new InvalidParameterException(plugin + " start", start, "an integer >= 0");
        return start;
    }

    /** A new layout owning the context's codecs. */
    static BatchLayout create(LayoutContext context, Retention retention, int start) {
        if (context.codec() == null) throw new IllegalArgumentException("layout context of layer " + context.layer() + " has no codec");
        SharedCodec identity = context.identity() == null ? null : new SharedCodec(context.identity());
        return new BatchLayout(context.backend(), context.layer(), retention, start, new SharedCodec(context.codec()),
                identity, context.kvHeads(), new Positions(context.rows(), start == 0));
    }
}
