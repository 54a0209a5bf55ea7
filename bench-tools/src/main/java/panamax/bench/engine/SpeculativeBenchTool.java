package panamax.bench.engine;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.spi.ToolProvider;

/** Publishes {@link SpeculativeBench} as the JDK tool {@code panamax-bench-speculative} ({@code panamax bench speculative}). */
public final class SpeculativeBenchTool implements ToolProvider {
    @Override
    public String name() {
        return "panamax-bench-speculative";
    }

    @Override
    public Optional<String> description() {
        return Optional.of("speculative decoding (ngram prompt lookup or a draft model) against plain greedy decode: tok/s and acceptance");
    }

    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        return SpeculativeBench.run(List.of(args), out, err);
    }
}
