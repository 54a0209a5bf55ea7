package panamax.bench.codecs;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.spi.ToolProvider;

/**
 * Publishes {@link CodecBench} as the JDK tool {@code panamax-bench-codecs}, which is how
 * {@code panamax bench codecs} finds it without the CLI requiring this module. Stateless; the caller
 * chooses whether the writers flush per line (the CLI's do, so progress appears as it happens).
 */
public final class CodecBenchTool implements ToolProvider {
    @Override
    public String name() {
        return "panamax-bench-codecs";
    }

    @Override
    public Optional<String> description() {
        return Optional.of("KV codec distortion, bits per element and encode/decode/attention throughput");
    }

    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        return CodecBench.run(List.of(args), out, err);
    }
}
