package panamax.app.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.spi.ToolProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code panamax bench NAME [ARGS...]}: runs a benchmark that a module publishes as the JDK tool
 * {@code panamax-bench-NAME} (a {@link ToolProvider}), e.g. {@code panamax bench codecs --json}.
 * The benchmarks live in the bench-tools module ({@code panamax.bench}), which the distribution
 * puts on the module path; the CLI only dispatches, so it requires neither it nor a plugin module.
 */
@Command(name = "bench", description = "run a benchmark: panamax bench NAME [ARGS...] (panamax bench lists them)")
public final class BenchCommand implements java.util.concurrent.Callable<Integer> {
    static final String PREFIX = "panamax-bench-";

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() {
        TreeMap<String, ToolProvider> benches = discover();
        if (arguments.isEmpty()) {
            spec.commandLine().getOut().println("benchmarks:");
            benches.forEach((name, tool) -> spec.commandLine().getOut()
                    .printf("  %-10s %s%n", name, tool.description().orElse("")));
            return 0;
        }
        String name = arguments.getFirst();
        ToolProvider tool = Optional.ofNullable(benches.get(name)).orElseThrow(() -> new ParameterException(
                spec.commandLine(), "no benchmark '" + name + "': available " + benches.keySet()));
        String[] rest = arguments.subList(1, arguments.size()).toArray(String[]::new);
        // autoflush writers: long benchmarks print progress and rows as they go
        return tool.run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), rest);
    }

    /** Every boot-layer tool whose name starts with {@value #PREFIX}, by short name. */
    static TreeMap<String, ToolProvider> discover() {
        TreeMap<String, ToolProvider> benches = new TreeMap<>();
        for (ToolProvider tool : ServiceLoader.load(ModuleLayer.boot(), ToolProvider.class)) {
            if (tool.name().startsWith(PREFIX)) benches.putIfAbsent(tool.name().substring(PREFIX.length()), tool);
        }
        return benches;
    }
}
