package panamax.layout.tck;

import java.util.Map;
import java.util.TreeMap;
import panamax.api.kv.CodecContext;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;

/**
 * A codec a layout stores during a run, with how far its decoded vectors may be from the originals.
 *
 * @param provider the codec plugin
 * @param params   its parameters, resolved against its declared ones when used
 * @param bound    the reconstruction bound the layout's decoded tokens are checked against
 */
public record StoredCodec(KvCodecProvider provider, Map<String, String> params, ReconstructionBound bound) {
    public StoredCodec {
        params = new TreeMap<>(params);
    }

    /** The parameters checked against the provider's declaration, defaults filled in. */
    public PluginParams resolved() {
        return PluginParams.of(params).resolve(provider.id(), provider.capabilities().params());
    }

    /** A new codec instance for {@code context}, owned by the caller. */
    public KvCodec create(CodecContext context) {
        return provider.create(resolved(), context);
    }

    @Override
    public String toString() {
        return provider.id() + (params.isEmpty() ? "" : params.toString());
    }
}
