package panamax.bench.server;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.spi.ToolProvider;

/** Publishes {@link ServeBench} as the JDK tool {@code panamax-bench-serve} ({@code panamax bench serve}). */
public final class ServeBenchTool implements ToolProvider {
    @Override
    public String name() {
        return "panamax-bench-serve";
    }

    @Override
    public Optional<String> description() {
        return Optional.of("the HTTP server under 1..N concurrent streaming clients: aggregate tok/s, time to first token, inter-token latency");
    }

    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        return ServeBench.run(List.of(args), out, err);
    }
}
