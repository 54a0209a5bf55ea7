package panamax.engine.plan;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import panamax.api.error.InvalidParameterException;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.model.LayerKvNeed;
import panamax.api.tensor.DType;

/**
 * A codec the planner settled on, with its resolved params and its shapes per head dimension.
 * Not thread-safe (the shape cache); lives for one {@code resolve} call.
 */
final class CodecChoice {
    private final String id;
    private final KvCodecProvider provider;
    private final PluginParams params;
    private final KvCodecCapabilities capabilities;
    private final DType activationType;
    private final Map<Integer, CodecShape> shapes = new HashMap<>();

    CodecChoice(String id, KvCodecProvider provider, PluginParams params, DType activationType) {
        this.activationType = activationType;
        this.id = id;
        this.provider = provider;
        this.params = params;
        this.capabilities = provider.capabilities();
    }

    String id() {
        return id;
    }

    PluginParams params() {
        return params;
    }

    KvCodecCapabilities capabilities() {
        return capabilities;
    }

    /**
     * Bytes one token of one row takes in {@code need}'s layer: kv heads × the codec's bytes per head.
     *
     * @throws UnsupportedCombinationException naming the layer when the codec cannot encode its head dimension
     */
    long bytesPerToken(LayerKvNeed need) {
        CodecShape shape = shapes.get(need.headDim());
        if (shape == null) {
            try {
                shape = provider.shape(params, need.headDim(), activationType);
            } catch (InvalidParameterException e) {
                throw new UnsupportedCombinationException("codec " + id + " (" + params + ") cannot encode layer "
                        + need.layer() + " (head dim " + need.headDim() + ")", List.of(e.getMessage()));
            }
            shapes.put(need.headDim(), shape);
        }
        return need.kvHeads() * shape.bytesPerTokenPerHead();
    }
}
