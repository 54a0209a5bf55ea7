package panamax.langchain4j;

import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import panamax.api.plan.KvScheme;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.RowEvents;
import panamax.engine.serve.SchedulerObserver;
import panamax.engine.serve.SchedulerStats;
import panamax.engine.serve.ServeRequest;
import panamax.engine.serve.ServingConfig;
import panamax.engine.serve.ServingPlan;
import panamax.engine.serve.Ticket;

/**
 * One model served in process to LangChain4j: owns a {@link BatchScheduler} over a
 * {@link ModelSession} (opened from a directory and owned, or borrowed) and hands out any number of
 * {@link PanamaxChatModel}s and {@link PanamaxStreamingChatModel}s that share it, so concurrent
 * callers are batched, reuse each other's prefixes and wait for admission when the KV budget is
 * spent. Thread-safe. Closing ends unfinished requests with an error, stops the scheduler, frees
 * its KV and prefix cache, and closes the session when it opened it.
 *
 * {@snippet :
 * try (PanamaxChatModels models = PanamaxChatModels.builder().modelDirectory(dir).maxOutputTokens(256).build()) {
 *     ChatModel model = models.chatModel();
 *     String answer = model.chat("Why is the sky blue?");
 * }
 * }
 */
public final class PanamaxChatModels implements AutoCloseable {
    private final ModelSession session;
    private final boolean ownsSession;
    private final BatchScheduler scheduler;
    private final ChatRequests requests;
    private final List<ChatModelListener> listeners;
    private final ExecutorService streams;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PanamaxChatModels(Builder b, ModelSession session, boolean ownsSession) {
        this.session = session;
        this.ownsSession = ownsSession;
        String name = b.modelName != null ? b.modelName : b.directory != null ? b.directory.getFileName().toString() : session.pluginId();
        ChatRequestParameters defaults = DefaultChatRequestParameters.builder()
                .modelName(name)
                .temperature(b.temperature)
                .topP(b.topP)
                .topK(b.topK)
                .maxOutputTokens(b.maxOutputTokens)
                .build();
        this.requests = new ChatRequests(session.tokenizer(), session.spec().maxPositions(), name, defaults, b.seed);
        this.listeners = List.copyOf(b.listeners);
        ServingPlan plan = ServingPlan.resolve(session.plan(1, 0), session::layoutCapabilities, b.config);
        this.scheduler = BatchScheduler.start(session, plan, b.observer);
        this.streams = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("panamax-langchain4j-stream-", 0).factory());
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A blocking chat model over this scheduler; any number may be used at once.
     *
     * @throws IllegalStateException when the model has no chat template
     */
    public PanamaxChatModel chatModel() {
        requireChatTemplate();
        return new PanamaxChatModel(this);
    }

    /**
     * A streaming chat model over this scheduler; any number may be used at once.
     *
     * @throws IllegalStateException when the model has no chat template
     */
    public PanamaxStreamingChatModel streamingChatModel() {
        requireChatTemplate();
        return new PanamaxStreamingChatModel(this);
    }

    private void requireChatTemplate() {
        if (!session.tokenizer().hasChatTemplate()) {
            throw new IllegalStateException("the model '" + modelName() + "' has no chat template, so it cannot take chat messages");
        }
    }

    /** The name responses carry; a request naming another model is refused. */
    public String modelName() {
        return requests.defaults().modelName();
    }

    /** The parameters a request's own parameters override: model name, temperature, top-p, top-k, max output tokens. */
    public ChatRequestParameters defaultRequestParameters() {
        return requests.defaults();
    }

    /** How the scheduler shares the model (batching, prefix reuse, admission), with reasons. */
    public ServingPlan servingPlan() {
        return scheduler.plan();
    }

    /** The scheduler's state after its latest step: running rows, queue, KV and prefix-cache bytes. */
    public SchedulerStats stats() {
        return scheduler.stats();
    }

    /** The model session; borrowed from this owner (or from whoever gave it to the builder). */
    public ModelSession session() {
        return session;
    }

    ChatRequests requests() {
        return requests;
    }

    List<ChatModelListener> listeners() {
        return listeners;
    }

    /** Queues {@code generation}; rejections come as they are (see {@link ChatRequests#translated}). */
    Ticket submit(GenerationRequest generation, RowEvents events) {
        return scheduler.submit(new ServeRequest(generation, -1, events));
    }

    /** Runs a stream's delivery on its own virtual thread, so the handler may block without stalling the batch. */
    void deliver(Runnable delivery) {
        streams.execute(delivery);
    }

    /**
     * Ends unfinished requests with an error (their callers get an {@link IllegalStateException};
     * streaming handlers get it at {@code onError}), waits for streaming handlers to return, frees
     * the scheduler's KV and closes the session if this owner opened it. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            scheduler.close();
            streams.close();
        } finally {
            if (ownsSession) session.close();
        }
    }

    /** Configures a {@link PanamaxChatModels}: a model directory or an open session, and defaults. */
    public static final class Builder {
        private Path directory;
        private ModelSession session;
        private PluginRegistry registry;
        private KvScheme kv;
        private String backend;
        private ServingConfig config = ServingConfig.defaults();
        private SchedulerObserver observer = SchedulerObserver.NONE;
        private String modelName;
        private Double temperature = 1.0;
        private Double topP;
        private Integer topK;
        private Integer maxOutputTokens;
        private Long seed;
        private List<ChatModelListener> listeners = List.of();

        private Builder() {
        }

        /** A Hugging Face model directory to open (and own); exclusive with {@link #session}. */
        public Builder modelDirectory(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /** An open session to serve, borrowed: close the models before it; exclusive with {@link #modelDirectory}. */
        public Builder session(ModelSession session) {
            this.session = Objects.requireNonNull(session, "session");
            return this;
        }

        /** The plugins to open the directory with; default: the boot layer's. */
        public Builder registry(PluginRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** How the KV cache is stored when opening a directory; default identity (no compression). */
        public Builder kvScheme(KvScheme kv) {
            this.kv = Objects.requireNonNull(kv, "kv");
            return this;
        }

        /** A backend id when opening a directory; default the planner's choice. */
        public Builder backend(String id) {
            this.backend = Objects.requireNonNull(id, "id");
            return this;
        }

        /** Batch size, KV memory budget, prefix-cache share, queue length, prefill chunk and prefill step; default {@link ServingConfig#defaults()}. */
        public Builder servingConfig(ServingConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Scheduler metrics hooks; default none. */
        public Builder observer(SchedulerObserver observer) {
            this.observer = Objects.requireNonNull(observer, "observer");
            return this;
        }

        /** The name responses carry; default the directory's name (or the model plugin's id for a session). */
        public Builder modelName(String name) {
            this.modelName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Default temperature, 0 for greedy; default 1. */
        public Builder temperature(double temperature) {
            this.temperature = temperature;
            return this;
        }

        /** Default nucleus threshold; default 1 (every token). */
        public Builder topP(double topP) {
            this.topP = topP;
            return this;
        }

        /** Default number of most likely tokens kept; default all. */
        public Builder topK(int topK) {
            this.topK = topK;
            return this;
        }

        /** Default token limit; default the rest of the model's context after the prompt. */
        public Builder maxOutputTokens(int tokens) {
            if (tokens < 1) throw new IllegalArgumentException("maxOutputTokens: expected at least 1, found " + tokens);
            this.maxOutputTokens = tokens;
            return this;
        }

        /**
         * The seed every request samples with: the same conversation and parameters then give the
         * same text, alone or batched with others. Default a fresh seed per request.
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** LangChain4j listeners of every model handed out. */
        public Builder listeners(List<ChatModelListener> listeners) {
            this.listeners = List.copyOf(listeners);
            return this;
        }

        /**
         * Opens the session (for a directory) and starts the scheduler.
         *
         * @throws IllegalStateException unless exactly one of a directory and a session was given
         * @throws panamax.api.error.PanamaxException when the model cannot be opened or planned
         */
        public PanamaxChatModels build() {
            if ((directory == null) == (session == null)) {
                throw new IllegalStateException("expected exactly one of modelDirectory and session, found "
                        + (directory == null ? "neither" : "both"));
            }
            if (session != null) {
                if (registry != null || kv != null || backend != null) {
                    throw new IllegalStateException("registry, kvScheme and backend choose how a directory is opened; an open session has them already");
                }
                return new PanamaxChatModels(this, session, false);
            }
            ModelSession opened = ModelSession.open(registry != null ? registry : PluginRegistry.discover(Optional.empty()), directory,
                    kv != null ? kv : KvScheme.identity(), Optional.ofNullable(backend));
            try {
                return new PanamaxChatModels(this, opened, true);
            } catch (RuntimeException e) {
                opened.close();
                throw e;
            }
        }
    }
}
