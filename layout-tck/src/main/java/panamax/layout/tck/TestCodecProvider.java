package panamax.layout.tck;

import java.util.function.BiFunction;
import java.util.function.IntFunction;
import java.util.Optional;
import panamax.api.kv.CodecContext;
import panamax.api.kv.CodecShape;
import panamax.api.kv.KvCodec;
import panamax.api.kv.KvCodecCapabilities;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.PluginParams;
import panamax.api.kv.ReconstructionBound;
import panamax.api.tensor.DType;

/** A parameterless provider of one of the TCK's test codecs. */
record TestCodecProvider(String id, KvCodecCapabilities capabilities, IntFunction<CodecShape> shapes,
                         BiFunction<CodecShape, CodecContext, KvCodec> factory) implements KvCodecProvider {
    @Override
    public CodecShape shape(PluginParams params, int headDim) {
        if (headDim <= 0) throw new IllegalArgumentException(id + ": head dim must be positive, found " + headDim);
        return shapes.apply(headDim);
    }

    @Override
    public Optional<ReconstructionBound> reconstructionBound(PluginParams params, int headDim, DType activationType) {
        return Optional.of(id.equals("tck-lossy") ? LossyCodec.BOUND : ReconstructionBound.exact());
    }

    @Override
    public KvCodec create(PluginParams params, CodecContext context) {
        return factory.apply(shape(params, context.headDim()), context);
    }

    @Override
    public String toString() {
        return id;
    }
}
