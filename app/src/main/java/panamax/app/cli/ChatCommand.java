package panamax.app.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.plan.KvScheme;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.PrefixCache;
import panamax.engine.speculative.Speculation;
import panamax.engine.generate.SamplingParams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code panamax chat}: an interactive multi-turn conversation through the model's chat template.
 * Reads one user turn per line of standard input; {@code /exit} or end of input quits. Replies
 * stream to standard output; the prompt marker and per-turn stats go to standard error.
 */
@Command(name = "chat", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Chat with a model through its chat template: one user turn per input line; /exit or end of input quits.")
public final class ChatCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Option(names = "--system", paramLabel = "TEXT", description = "a system message opening the conversation")
    String system;

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
        KvScheme scheme = kv.schemeFor(spec.commandLine());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (ModelSession session = model.open(plugins.resolve(), scheme, sampling.prefillChunk, err);
             Speculation speculation = draft.open(session, plugins.resolve(), err).orElse(null);
             PrefixCache cache = speculation == null ? session.prefixCache()
                     : new PrefixCache(session.generator().withSpeculation(speculation), 0)) {
            Tokenizer tokenizer = session.tokenizer();
            if (!tokenizer.hasChatTemplate()) {
                throw usage(model.displayName() + " has no chat template (tokenizer_config.json chat_template or chat_template.jinja); use 'panamax generate'");
            }
            List<ChatMessage> conversation = new ArrayList<>();
            if (system != null) conversation.add(new ChatMessage("system", system));
            err.println("type a message; /exit or end of input quits");
            SamplingParams params = sampling.params();
            for (int turn = 0; ; turn++) {
                err.print("> ");
                err.flush();
                String line = in.readLine();
                if (line == null || line.strip().equals("/exit")) break;
                if (line.isBlank()) continue;
                conversation.add(new ChatMessage("user", line));
                int[] ids = tokenizer.encode(tokenizer.renderChat(conversation, true), false);
                ModelOptions.warnIfPastTrainedContext(session, ids.length, sampling.maxTokens, err);
                // Each turn draws from its own stream so a replayed conversation replays its replies.
                GenerationRequest request = new GenerationRequest(ids, params.withSeed(params.seed() + turn), sampling.maxTokens,
                        tokenizer.eosIds(), sampling.stops);
                // The KV cache is kept between turns: only the tokens the last turn's cache lacks are prefilled.
                GenerationOutput output = cache.generate(request, new StreamPrinter(out, err, sampling.prefillChunk, model.progressEnabled()));
                out.println();
                out.flush();
                conversation.add(new ChatMessage("assistant", output.results().getFirst().text()));
                err.println(output.stats().summary());
                if (speculation != null) err.println("speculative: " + speculation.stats().summary());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading standard input", e);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
