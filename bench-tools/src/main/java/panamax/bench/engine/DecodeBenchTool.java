package panamax.bench.engine;

import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.spi.ToolProvider;

/**
 * Publishes {@link DecodeBench} as the JDK tool {@code panamax-bench-decode}, which is how
 * {@code panamax bench decode} finds it without the CLI requiring this module. Stateless; the caller
 * chooses whether the writers flush per line (the CLI's do, so progress appears as it happens).
 */
public final class DecodeBenchTool implements ToolProvider {
    @Override
    public String name() {
        return "panamax-bench-decode";
    }

    @Override
    public Optional<String> description() {
        return Optional.of("decode and prefill tok/s of a random Llama-shaped model (bf16, 8-bit, 4-bit) against the measured floor");
    }

    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        return DecodeBench.run(List.of(args), out, err);
    }
}
