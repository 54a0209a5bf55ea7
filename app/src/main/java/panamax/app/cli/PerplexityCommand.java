package panamax.app.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import panamax.api.plan.KvScheme;
import panamax.engine.eval.Perplexity;
import panamax.engine.eval.PerplexityReport;
import panamax.engine.generate.ModelSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code panamax perplexity}: a model's perplexity on a UTF-8 text file (special tokens in the text,
 * such as {@code <|endoftext|>} between documents, are read as such), over consecutive windows;
 * prints one JSON object. KV flags apply, so the cost of a KV codec in perplexity can be measured.
 */
@Command(name = "perplexity", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Measure a model's perplexity on a text file (consecutive windows, next-token loss); prints one JSON object.")
public final class PerplexityCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Option(names = "--text", paramLabel = "FILE", required = true, description = "UTF-8 text to score")
    Path text;

    @Option(names = "--window", paramLabel = "N", defaultValue = "512", description = "tokens scored per forward pass (default 512)")
    int window;

    @Option(names = "--max-windows", paramLabel = "N", defaultValue = "0", description = "score at most N windows; 0 scores all (default)")
    int maxWindows;

    @Mixin
    KvFlags kv;

    @Mixin
    PluginsDirOption plugins;

    @Override
    public void run() {
        String problem = model.problem();
        if (problem != null) throw usage(problem);
        if (window < 1) throw usage("--window: expected a positive number of tokens, found " + window);
        if (maxWindows < 0) throw usage("--max-windows: expected 0 (all) or more, found " + maxWindows);
        String content = read();
        KvScheme scheme = kv.schemeFor(spec.commandLine());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (ModelSession session = model.open(plugins.resolve(), scheme, ModelSession.DEFAULT_PREFILL_CHUNK, err)) {
            int[] ids = session.tokenizer().encode(content, false);
            if ((ids.length - 1) / window == 0) {
                throw usage("--text " + text + ": " + ids.length + " tokens, fewer than one window of " + (window + 1) + "; lower --window");
            }
            ProgressBar bar = model.progressEnabled() ? new ProgressBar(err, "scoring") : null;
            PerplexityReport report = Perplexity.measure(session, ids, window, maxWindows,
                    (done, total) -> {
                        if (bar != null) bar.tokens((long) done * window, (long) total * window);
                    });
            out.println(report.toJson());
            out.flush();
        }
    }

    private String read() {
        if (!Files.isRegularFile(text)) throw usage("--text " + text + ": expected a text file, found " + (Files.exists(text) ? "a directory" : "nothing"));
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(text))).toString();
        } catch (CharacterCodingException e) {
            throw usage("--text " + text + ": expected UTF-8 text, found bytes that are not UTF-8");
        } catch (IOException e) {
            throw usage("--text " + text + ": cannot read it (" + e.getMessage() + ")");
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
