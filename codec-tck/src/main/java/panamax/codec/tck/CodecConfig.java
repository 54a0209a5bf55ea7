package panamax.codec.tck;

import java.util.Map;
import java.util.TreeMap;
import panamax.api.kv.PluginParams;
import panamax.api.tensor.DType;

/**
 * One configuration a codec is checked in: its parameters, a head dimension it accepts, and the
 * dtype keys and values arrive in.
 *
 * @param params     the codec's parameters as a user gives them
 * @param resolved   the same, checked against the provider's declaration with defaults filled in
 * @param headDim    features per head
 * @param activation dtype of the keys, values and queries
 */
record CodecConfig(Map<String, String> params, PluginParams resolved, int headDim, DType activation) {
    CodecConfig {
        params = new TreeMap<>(params);
    }

    @Override
    public String toString() {
        return (params.isEmpty() ? "defaults" : params.toString()) + ", head dim " + headDim + ", " + activation;
    }
}
