package panamax.kv.codecs;

import java.util.Map;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;

/** Creates codecs the way the engine does: provider, resolved params, context. */
public final class CodecFactory {
    private CodecFactory() {
    }

    public static KvCodec create(KvCodecProvider provider, Map<String, String> params, Backend backend, int kvHeads,
                                 int headDim, DType activation) {
        PluginParams resolved = PluginParams.of(params).resolve(provider.id(), provider.capabilities().params());
        return provider.create(resolved, new CodecContext(backend, 3, kvHeads, headDim, activation, 42));
    }
}
