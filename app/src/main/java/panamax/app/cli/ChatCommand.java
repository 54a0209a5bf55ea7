package panamax.app.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import panamax.api.model.ChatMessage;
import panamax.api.model.Tokenizer;
import panamax.api.model.ToolCall;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolCallParser;
import panamax.api.model.ToolDefinition;
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

    @Option(names = "--tools", paramLabel = "FILE", description = "a JSON array of OpenAI tools the model may call; "
            + "its calls are printed, and '/tool TEXT' answers the oldest unanswered one")
    java.nio.file.Path toolsFile;

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
            List<ToolDefinition> tools = toolsFile == null ? List.of() : readTools(session);
            java.util.Deque<String> unanswered = new java.util.ArrayDeque<>();
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
                if (line.startsWith("/tool ")) {
                    if (unanswered.isEmpty()) {
                        err.println("no tool call waits for an answer");
                        continue;
                    }
                    conversation.add(ChatMessage.toolResult(unanswered.removeFirst(), line.substring(6)));
                    if (!unanswered.isEmpty()) continue; // every call is answered before the model goes on
                } else {
                    conversation.add(new ChatMessage("user", line));
                    unanswered.clear();
                }
                int[] ids = tokenizer.encode(tokenizer.renderChat(conversation, tools, true), false);
                ModelOptions.warnIfPastTrainedContext(session, ids.length, sampling.maxTokens, err);
                // Each turn draws from its own stream so a replayed conversation replays its replies.
                GenerationRequest request = new GenerationRequest(ids, params.withSeed(params.seed() + turn), sampling.maxTokens,
                        tokenizer.eosIds(), sampling.stops).withConstraint(sampling.constraint());
                // The KV cache is kept between turns: only the tokens the last turn's cache lacks are prefilled.
                GenerationOutput output = cache.generate(request, new StreamPrinter(out, err, sampling.prefillChunk, model.progressEnabled()));
                out.println();
                out.flush();
                String reply = output.results().getFirst().text();
                List<ToolCall> calls = tools.isEmpty() ? List.of() : calls(session.toolCallFormat().orElseThrow(), reply);
                for (ToolCall call : calls) {
                    out.println("tool call " + call.id() + ": " + call.name() + " " + call.arguments());
                    unanswered.addLast(call.id());
                }
                out.flush();
                conversation.add(calls.isEmpty() ? new ChatMessage("assistant", reply) : ChatMessage.assistantCalls("", calls));
                err.println(output.stats().summary());
                if (speculation != null) err.println("speculative: " + speculation.stats().summary());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading standard input", e);
        }
    }

    private List<ToolDefinition> readTools(ModelSession session) {
        if (session.toolCallFormat().isEmpty()) {
            throw usage(model.displayName() + "'s chat template takes no tools (it never reads 'tools'), so --tools cannot reach the model");
        }
        try {
            return ToolsFile.read(toolsFile);
        } catch (IllegalArgumentException e) {
            throw usage("--tools " + e.getMessage());
        }
    }

    /** The calls in a reply, in the model's own format; text around them is dropped from the turn, as servers do. */
    private static List<ToolCall> calls(ToolCallFormat format, String reply) {
        ToolCallParser parser = format.newParser();
        List<ToolCallEvent> events = new ArrayList<>(parser.feed(reply));
        events.addAll(parser.finish());
        List<ToolCall> calls = new ArrayList<>();
        for (ToolCallEvent e : events) {
            if (e instanceof ToolCallEvent.Call c) calls.add(new ToolCall(format.newCallId(ThreadLocalRandom.current()), c.name(), c.arguments()));
        }
        return calls;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
