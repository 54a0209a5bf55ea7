package panamax.api.kv;

/**
 * A KV codec plugin, found with {@link java.util.ServiceLoader}. Declares its parameters and
 * planes so the planner can size a cache before anything is allocated.
 */
public interface KvCodecProvider {
    /** Stable id users select with {@code --kv-codec}, e.g. {@code affine}. */
    String id();

    KvCodecCapabilities capabilities();

    /**
     * The planes for {@code headDim} under resolved {@code params}.
     *
     * @throws panamax.api.error.InvalidParameterException when the head dimension does not suit
     *         the parameters (e.g. not divisible by the group size), naming both
     */
    CodecShape shape(PluginParams params, int headDim);

    /**
     * The planes for {@code headDim} when keys and values arrive in {@code activationType}. Codecs
     * whose planes follow the activation dtype (e.g. affine scales and biases) override this; the
     * default is {@link #shape(PluginParams, int)}.
     *
     * @throws panamax.api.error.InvalidParameterException as {@link #shape(PluginParams, int)}
     * @since 0.1
     */
    default CodecShape shape(PluginParams params, int headDim, panamax.api.tensor.DType activationType) {
        return shape(params, headDim);
    }

    /**
     * The codec's guaranteed reconstruction error for {@code headDim} and {@code activationType}
     * under resolved {@code params}, derived from its format (e.g. half a quantization step of a
     * group's range), not measured. Empty when the codec does not declare one; the codec
     * conformance kit then fails and asks for it.
     *
     * @throws panamax.api.error.InvalidParameterException as {@link #shape(PluginParams, int)}
     * @since 0.1
     */
    default java.util.Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim,
                                                                      panamax.api.tensor.DType activationType) {
        return java.util.Optional.empty();
    }

    /** A codec instance for one layer, owned by the caller. Params are already resolved. */
    KvCodec create(PluginParams params, CodecContext context);
}
