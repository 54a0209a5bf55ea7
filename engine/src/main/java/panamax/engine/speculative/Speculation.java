package panamax.engine.speculative;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import panamax.api.draft.DraftContext;
import panamax.api.draft.DraftModel;
import panamax.api.draft.Drafter;
import panamax.api.draft.DrafterProvider;
import panamax.api.draft.RowCaches;
import panamax.api.error.UnsupportedCombinationException;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.Tokenizer;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.engine.generate.ForwardPass;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;

/**
 * Speculative decoding made ready for one target model: the planned drafter, created through its
 * provider, and the draft model it drafts with (loaded here, on the target's backend id, with the
 * identity KV codec), plus counters. Owns the drafter and the draft model; borrows the target.
 * Used by one thread at a time.
 *
 * {@snippet :
 * try (Speculation speculation = Speculation.open(plan, session, registry, System.err::println)) {
 *     GenerationOutput out = session.generator().withSpeculation(speculation).generate(request, listener);
 *     System.err.println(speculation.stats().summary());
 * }
 * }
 */
public final class Speculation implements AutoCloseable {
    private final SpeculationPlan plan;
    private final Drafter drafter;
    private final ModelSession draftSession;
    private final int vocab;
    private final SpeculationStats stats = new SpeculationStats();
    private long nextKey;

    private Speculation(SpeculationPlan plan, Drafter drafter, ModelSession draftSession, int vocab) {
        this.plan = plan;
        this.drafter = drafter;
        this.draftSession = draftSession;
        this.vocab = vocab;
    }

    /**
     * Creates the plan's drafter for {@code target}, loading its draft model when it has one.
     *
     * @param progress receives one line per loading stage of the draft model
     * @throws UnsupportedCombinationException when the drafter is not installed or refuses the draft model
     */
    public static Speculation open(SpeculationPlan plan, ModelSession target, PluginRegistry registry, Consumer<String> progress) {
        DrafterProvider provider = registry.drafters().stream().filter(p -> p.id().equals(plan.drafter().id())).findFirst()
                .orElseThrow(() -> new UnsupportedCombinationException("drafter '" + plan.drafter().id() + "' is not installed", List.of()))
                .provider();
        ModelSession draft = null;
        try {
            if (plan.draftModel().isPresent()) {
                Path dir = plan.draftModel().get();
                progress.accept("loading draft model " + dir + " ...");
                draft = ModelSession.open(registry, dir, KvScheme.identity(), Optional.of(target.backend().name()),
                        ModelSession.DEFAULT_PREFILL_CHUNK, progress);
            }
            int vocab = target.spec().vocabSize();
            Optional<DraftModel> model = draft == null ? Optional.empty() : Optional.of(asDraftModel(draft, plan.draftModel().get()));
            Drafter drafter = provider.create(plan.params(), new DraftContext(target.tokenizer(), vocab, model));
            return new Speculation(plan, drafter, draft, vocab);
        } catch (RuntimeException e) {
            if (draft != null) draft.close();
            throw e;
        }
    }

    /** A speculation over an already created drafter (tests, benchmarks); takes ownership of it. */
    public static Speculation of(SpeculationPlan plan, Drafter drafter, int vocab) {
        return new Speculation(plan, drafter, null, vocab);
    }

    /** A decoder over {@code forward} (the target's pass) that drafts with this speculation's drafter. */
    public SpeculativeDecoder decoder(ForwardPass forward) {
        return new SpeculativeDecoder(forward, drafter, plan.draftLength(), vocab, stats);
    }

    /** A key no other row of this speculation has had. */
    public long newKey() {
        return nextKey++;
    }

    public SpeculationPlan plan() {
        return plan;
    }

    /** Counters over every step so far. */
    public SpeculationStats stats() {
        return stats;
    }

    /** A loaded model session seen as a draft model (its own KV plan, identity codec). */
    static DraftModel asDraftModel(ModelSession session, Path dir) {
        return new DraftModel() {
            @Override
            public Path directory() {
                return dir;
            }

            @Override
            public AutoregressiveGraph graph() {
                return session.graph();
            }

            @Override
            public Backend backend() {
                return session.backend();
            }

            @Override
            public Tokenizer tokenizer() {
                return session.tokenizer();
            }

            @Override
            public int vocabSize() {
                return session.spec().vocabSize();
            }

            @Override
            public RowCaches openCaches(int rows) {
                return session.openCaches(rows, 0);
            }
        };
    }

    @Override
    public void close() {
        try {
            drafter.close();
        } finally {
            if (draftSession != null) draftSession.close();
        }
    }
}
