package panamax.app.cli;

import java.util.ArrayList;
import java.util.List;
import panamax.engine.generate.SamplingParams;
import picocli.CommandLine.Option;

/** The sampling flags of {@code generate} and {@code chat}, in mlx-lm's spelling where it has one. */
public final class SamplingOptions {
    @Option(names = "--max-tokens", paramLabel = "N", defaultValue = "256", description = "the most tokens to generate (default 256)")
    int maxTokens;

    @Option(names = "--temp", paramLabel = "T", defaultValue = "0", description = "sampling temperature; 0 is greedy (default 0)")
    double temperature;

    @Option(names = "--top-k", paramLabel = "K", defaultValue = "0", description = "keep the K most likely tokens; 0 keeps all (default 0)")
    int topK;

    @Option(names = "--top-p", paramLabel = "P", defaultValue = "1", description = "keep the smallest set of tokens whose probability reaches P (default 1)")
    double topP;

    @Option(names = "--min-p", paramLabel = "P", defaultValue = "0", description = "drop tokens less than P times as likely as the best (default 0)")
    double minP;

    @Option(names = "--repetition-penalty", paramLabel = "R", defaultValue = "1", description = "penalty on recently seen tokens; 1 is none (default 1)")
    double repetitionPenalty;

    @Option(names = "--repetition-context-size", paramLabel = "N", defaultValue = "20", description = "recent tokens the repetition penalty looks at (default 20)")
    int repetitionContext;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "random seed: the same seed gives the same text (default 0)")
    long seed;

    @Option(names = "--stop", paramLabel = "TEXT", description = "stop when the text contains TEXT (trimmed from the output); repeatable")
    List<String> stops = new ArrayList<>();

    @Option(names = "--prefill-chunk", paramLabel = "N", defaultValue = "512", description = "prompt tokens per prefill pass (default 512)")
    int prefillChunk;

    /**
     * The sampling parameters these flags ask for.
     *
     * @throws panamax.api.error.InvalidParameterException naming the parameter that is out of range
     */
    SamplingParams params() {
        return new SamplingParams(temperature, topK, topP, minP, repetitionPenalty, repetitionContext, seed);
    }

    /** A one-line problem with the flags that {@link SamplingParams} does not check, or null. */
    String problem() {
        if (maxTokens < 1) return "--max-tokens must be at least 1, found " + maxTokens;
        if (prefillChunk < 1) return "--prefill-chunk must be at least 1, found " + prefillChunk;
        for (String stop : stops) if (stop.isEmpty()) return "--stop must not be empty";
        return null;
    }
}
