package panamax.bench.server;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.spi.ToolProvider;

/** Publishes {@link StructuredBench} as the JDK tool {@code panamax-bench-structured} ({@code panamax bench structured}). */
public final class StructuredBenchTool implements ToolProvider {
    @Override
    public String name() {
        return "panamax-bench-structured";
    }

    @Override
    public Optional<String> description() {
        return Optional.of("decode tok/s with a JSON-schema grammar mask against plain decode, in one run (demo model unless --model)");
    }

    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        return StructuredBench.run(List.of(args), out, err);
    }
}
