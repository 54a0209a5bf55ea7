package panamax.models.decoder;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import panamax.api.model.LoadOptions;
import panamax.api.model.ParameterCount;
import panamax.model.support.weights.TensorEntry;
import panamax.model.support.weights.WeightFiles;

/**
 * Counts a decoder's parameters from its config, in total and per token: a sparse layer's token
 * multiplies by the router and its {@code k} routed experts only. The weight bytes a decode step
 * reads are the stored bytes less the unrouted share of the experts' tensors (read from the
 * safetensors headers, so quantized and mixed-precision experts are counted as stored).
 */
final class ParameterCounter {
    private ParameterCounter() {
    }

    static ParameterCount count(DecoderConfig c, Path directory, long weightBytes) {
        long h = c.hidden(), qOut = (long) c.heads() * c.headDim(), kvOut = (long) c.kvHeads() * c.headDim();
        DecoderFamily f = c.family();
        long attention = h * qOut + 2 * h * kvOut + qOut * h + (c.qkvBias() ? qOut + 2 * kvOut : 0) + (c.outputBias() ? h : 0)
                + (f.qkNorm() ? 2L * c.headDim() : 0) + (f.sandwichNorms() ? 4 : 2) * h;
        long denseMlp = 3 * h * c.intermediate() + (c.mlpBias() ? 2L * c.intermediate() + h : 0);
        long total = (long) c.vocab() * h + h + (c.tiedEmbeddings() ? 0 : (long) c.vocab() * h);
        long active = total;
        for (int i = 0; i < c.layers(); i++) {
            total += attention;
            active += attention;
            if (c.experts().isPresent() && c.experts().get().sparse(i)) {
                MoeConfig m = c.experts().get();
                long expert = 3 * h * m.expertWidth();
                long shared = m.sharedWidth() == 0 ? 0 : 3 * h * m.sharedWidth() + h; // and its gate: every token runs it
                total += m.experts() * h + m.experts() * expert + shared;
                active += m.experts() * h + m.topK() * expert + shared;
            } else {
                total += denseMlp;
                active += denseMlp;
            }
        }
        if (c.experts().isEmpty()) return ParameterCount.dense(total, weightBytes);
        MoeConfig m = c.experts().get();
        long expertBytes = weightBytes == 0 ? 0 : expertBytes(directory);
        long unrouted = (long) Math.ceil(expertBytes * (double) (m.experts() - m.topK()) / m.experts());
        return new ParameterCount(total, active, Math.max(0, weightBytes - unrouted));
    }

    /** Stored bytes of every expert tensor (per-expert or stacked, with their scales and biases); headers only. */
    private static long expertBytes(Path directory) {
        try (Arena arena = Arena.ofConfined()) {
            WeightFiles files = WeightFiles.open(directory, arena, LoadOptions.defaults().withWeights(LoadOptions.Weights.MAP));
            long bytes = 0;
            for (String name : files.names()) {
                if (name.contains(".experts.") || name.contains(".switch_mlp.")) bytes += files.entry(name).map(TensorEntry::byteSize).orElse(0L);
            }
            return bytes;
        }
    }
}
