package panamax.app.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.plan.KvScheme;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.Generator;
import panamax.engine.speculative.Speculation;
import panamax.engine.generate.ModelSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code panamax generate}: continues one prompt, streaming the text to standard output (several
 * prompts run as one batch and print when done), and ends with a stats line. Loading stages and prefill progress go to standard error.
 */
@Command(name = "generate", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Generate text from a prompt with a Hugging Face model directory, streaming it to standard output.")
public final class GenerateCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Option(names = "--prompt", paramLabel = "TEXT", required = true,
            description = "the prompt; repeat it to generate for several prompts as one left-padded batch (printed when done)")
    List<String> prompts;

    @Option(names = "--system", paramLabel = "TEXT", description = "a system message (with the chat template)")
    String system;

    @Option(names = "--chat-template", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "wrap the prompt as a user turn through the model's chat template when it has one (default: on)")
    boolean chatTemplate;

    @Mixin
    SamplingOptions sampling;

    @Mixin
    KvFlags kv;

    @Mixin
    DraftOptions draft;

    @Mixin
    PluginsDirOption plugins;

    @Override
    public void run() {
        String problem = sampling.problem() != null ? sampling.problem() : model.problem();
        if (problem != null) throw usage(problem);
        if (system != null && !chatTemplate) throw usage("--system needs the chat template; drop --no-chat-template");
        KvScheme scheme = kv.schemeFor(spec.commandLine());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (ModelSession session = model.open(plugins.resolve(), scheme, sampling.prefillChunk, err);
             Speculation speculation = draft.open(session, plugins.resolve(), err).orElse(null)) {
            Tokenizer tokenizer = session.tokenizer();
            List<GenerationRequest> requests = new ArrayList<>();
            for (String prompt : prompts) {
                int[] ids = promptIds(tokenizer, prompt, err);
                ModelOptions.warnIfPastTrainedContext(session, ids.length, sampling.maxTokens, err);
                requests.add(new GenerationRequest(ids, sampling.params(), sampling.maxTokens, tokenizer.eosIds(), sampling.stops)
                        .withConstraint(sampling.constraint()));
            }
            boolean single = requests.size() == 1;
            Generator generator = speculation == null ? session.generator() : session.generator().withSpeculation(speculation);
            GenerationOutput output = generator.generate(requests,
                    single ? new StreamPrinter(out, err, sampling.prefillChunk, model.progressEnabled())
                            : StreamPrinter.prefillOnly(err, sampling.prefillChunk, model.progressEnabled()));
            if (single) {
                out.println();
            } else {
                for (int r = 0; r < requests.size(); r++) out.println("--- " + (r + 1) + " ---\n" + output.results().get(r).text());
            }
            out.println("[" + String.join(",", output.results().stream()
                    .map(result -> result.finish().name().toLowerCase(java.util.Locale.ROOT)).toList()) + "] " + output.stats().summary());
            out.flush();
            if (speculation != null) err.println("speculative: " + speculation.stats().summary());
        }
    }

    private int[] promptIds(Tokenizer tokenizer, String prompt, PrintWriter err) {
        if (chatTemplate && tokenizer.hasChatTemplate()) {
            List<ChatMessage> messages = new ArrayList<>();
            if (system != null) messages.add(new ChatMessage("system", system));
            messages.add(new ChatMessage("user", prompt));
            // The template writes the special tokens itself, as transformers' apply_chat_template does.
            return tokenizer.encode(tokenizer.renderChat(messages, true), false);
        }
        if (system != null) throw usage("--system needs a chat template, and " + model.displayName() + " has none");
        if (chatTemplate) err.println("the model has no chat template; using the prompt as plain text");
        return tokenizer.encode(prompt, true);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
