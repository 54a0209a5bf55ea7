package panamax.app.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.ModelSession;
import panamax.engine.serve.ServingConfig;
import panamax.engine.speculative.Speculation;
import panamax.server.PanamaxServer;
import panamax.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code panamax serve}: an OpenAI-compatible HTTP server with continuous batching, prefix reuse
 * and admission by memory (docs/serving.md). Listens at once ({@code /health} says "loading"),
 * loads the model, then serves until Ctrl-C or SIGTERM, which drain it: no new requests, running
 * streams finish (up to {@code --drain-timeout}), exit 0.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Serve a model over an OpenAI-compatible HTTP API (/v1/chat/completions, /v1/completions, /v1/models).")
public final class ServeCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions model;

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1", description = "address to listen on (default 127.0.0.1: this machine only)")
    String host;

    @Option(names = "--port", paramLabel = "N", defaultValue = "8080", description = "port to listen on; 0 picks a free one (default 8080)")
    int port;

    @Option(names = "--max-batch", paramLabel = "ROWS", defaultValue = "8", description = "the most requests decoded together (default 8)")
    int maxBatch;

    @Option(names = "--memory-budget", paramLabel = "SIZE", converter = PlanCommand.SizeConverter.class,
            description = "bytes the KV cache of running requests and the prefix cache may take together (default 4GiB)")
    Long memoryBudget;

    @Option(names = "--prefix-cache-share", paramLabel = "F", defaultValue = "0.25",
            description = "share of the memory budget kept for finished requests' KV, reused by prompts that share a prefix; 0 turns reuse off (default 0.25)")
    double prefixShare;

    @Option(names = "--max-queue", paramLabel = "N", defaultValue = "64", description = "requests that may wait for admission; more get 429 (default 64)")
    int maxQueue;

    @Option(names = "--api-key", paramLabel = "KEY", description = "require 'Authorization: Bearer KEY' on every /v1 call")
    String apiKey;

    @Option(names = "--prefill-chunk", paramLabel = "N", defaultValue = "512", description = "most prompt tokens per prefill pass; running streams decode between passes (default 512)")
    int prefillChunk;

    @Option(names = "--prefill-step-ms", paramLabel = "MS", defaultValue = "" + ServingConfig.DEFAULT_PREFILL_STEP_MILLIS,
            description = "while streams are running, cut prefill passes to about this long, so they keep flowing; 0: passes of --prefill-chunk (default 1000)")
    int prefillStepMillis;

    @Option(names = "--served-model-name", paramLabel = "ID", description = "the model id clients send and see (default: the model directory's name)")
    String servedName;

    @Option(names = "--max-body", paramLabel = "SIZE", converter = PlanCommand.SizeConverter.class,
            description = "largest request body accepted; larger ones get 413 (default 4MiB)")
    Long maxBody;

    @Option(names = "--drain-timeout", paramLabel = "SECONDS", defaultValue = "30", description = "on shutdown, how long running streams may take to finish (default 30)")
    int drainSeconds;

    @Mixin
    KvFlags kv;

    @Mixin
    DraftOptions draft;

    @Mixin
    PluginsDirOption plugins;

    @Override
    public void run() {
        String problem = model.problem();
        if (problem != null) throw usage(problem);
        if (prefillStepMillis < 0) throw usage("--prefill-step-ms: expected 0 (no target) or more milliseconds, found " + prefillStepMillis);
        ServingConfig config;
        ServerOptions options;
        try {
            config = new ServingConfig(maxBatch, memoryBudget == null ? ServingConfig.DEFAULT_MEMORY_BUDGET : memoryBudget, prefixShare,
                    maxQueue, prefillChunk, prefillStepMillis);
            options = ServerOptions.defaults().withHost(host).withPort(port).withApiKey(apiKey)
                    .withMaxBodyBytes(maxBody == null ? ServerOptions.DEFAULT_MAX_BODY_BYTES : (int) Math.min(Integer.MAX_VALUE, maxBody))
                    .withDrainTimeout(Duration.ofSeconds(drainSeconds));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        if (drainSeconds < 0) throw usage("--drain-timeout: expected at least 0 seconds, found " + drainSeconds);
        KvScheme scheme = kv.schemeFor(spec.commandLine());
        PrintWriter err = spec.commandLine().getErr();
        String id = servedName != null ? servedName : model.model == null ? DemoModel.NAME : model.directory().getFileName().toString();
        PanamaxServer server;
        try {
            server = PanamaxServer.start(options);
        } catch (RuntimeException e) {
            throw new ParameterException(spec.commandLine(), "cannot listen on " + host + ":" + port + ": " + rootMessage(e));
        }
        // Ctrl-C and SIGTERM run shutdown hooks: this one drains, then ends the process with 0 (a
        // plain signal exit would report 130 or 143). No signal API: jdk.unsupported would let Guava
        // reach sun.misc.Unsafe and print warnings on every command.
        Thread drainOnSignal = Thread.ofPlatform().name("panamax-serve-drain").unstarted(() -> {
            err.println("draining: no new requests; running streams may take up to " + drainSeconds + " s");
            err.flush();
            boolean finished = server.drain();
            err.println(finished ? "stopped" : "stopped; some requests did not finish in time and ended with an error");
            err.flush();
            Runtime.getRuntime().halt(0);
        });
        Runtime.getRuntime().addShutdownHook(drainOnSignal);
        try {
            err.println("listening on http://" + host + ":" + server.port() + " (/health says loading until the model is in)");
            err.flush();
            ModelSession session = model.open(plugins.resolve(), scheme, prefillChunk, err);
            Speculation speculation;
            try {
                speculation = draft.open(session, plugins.resolve(), err).orElse(null);
            } catch (RuntimeException e) {
                session.close();
                throw e;
            }
            server.serve(session, id, config, speculation);
            err.println("serving '" + id + "' on http://" + host + ":" + server.port() + "/v1 (batch " + maxBatch + ", KV budget "
                    + config.memoryBudget() + " bytes" + (apiKey != null ? ", API key required" : "") + "); Ctrl-C drains and stops");
            server.scheduler().plan().describe().forEach(line -> err.println("  " + line));
            err.flush();
            new CountDownLatch(1).await(); // until a signal's shutdown hook drains and ends the process
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            Runtime.getRuntime().removeShutdownHook(drainOnSignal);
            server.close();
            throw e;
        }
    }

    private static String rootMessage(Throwable e) {
        while (e.getCause() != null) e = e.getCause();
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
