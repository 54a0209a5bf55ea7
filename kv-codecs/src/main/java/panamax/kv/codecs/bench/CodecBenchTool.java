package panamax.kv.codecs.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.spi.ToolProvider;

/**
 * Publishes {@link CodecBench} as the JDK tool {@code panamax-bench-codecs}, which is how
 * {@code panamax bench codecs} finds it without the CLI requiring this plugin module.
 */
public final class CodecBenchTool implements ToolProvider {
    @Override
    public String name() {
        return "panamax-bench-codecs";
    }

    @Override
    public java.util.Optional<String> description() {
        return java.util.Optional.of("KV codec distortion, bits per element and encode/decode/attention throughput");
    }

    @Override
    public int run(PrintStream out, PrintStream err, String... args) {
        return CodecBench.run(List.of(args), out, err);
    }

    /** The writer form buffers the output: the benchmark prints through PrintStreams. */
    @Override
    public int run(PrintWriter out, PrintWriter err, String... args) {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            status = CodecBench.run(List.of(args), o, e);
        }
        out.print(outBytes.toString(StandardCharsets.UTF_8));
        err.print(errBytes.toString(StandardCharsets.UTF_8));
        out.flush();
        err.flush();
        return status;
    }
}
