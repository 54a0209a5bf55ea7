package panamax.engine.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.spi.ToolProvider;

/**
 * Publishes {@link DecodeBench} as the JDK tool {@code panamax-bench-decode}, which is how
 * {@code panamax bench decode} finds it. Stateless.
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
    public int run(PrintStream out, PrintStream err, String... args) {
        return DecodeBench.run(List.of(args), out, err);
    }

    /** The writer form buffers the output: the benchmark prints through PrintStreams. */
    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            status = DecodeBench.run(List.of(args), o, e);
        }
        out.print(outBytes.toString(StandardCharsets.UTF_8));
        err.print(errBytes.toString(StandardCharsets.UTF_8));
        out.flush();
        err.flush();
        return status;
    }
}
