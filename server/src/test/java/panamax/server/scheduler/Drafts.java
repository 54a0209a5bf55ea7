package panamax.server.scheduler;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.SpeculationPlan;
import panamax.engine.speculative.SpeculationPlanner;
import panamax.engine.speculative.SpeculationRequest;
import panamax.engine.speculative.TruncatedDraft;

/** Speculations the tests run: prompt lookup, and a draft model that is the target itself or a copy of it cut to fewer layers. */
final class Drafts {
    private Drafts() {
    }

    static Speculation ngram(ModelSession target, int draftTokens) {
        // n-grams from 1 token: more (and worse) drafts, so more acceptances and rejections to check
        return open(target, new SpeculationRequest(Optional.of("ngram"), Optional.empty(), OptionalInt.of(draftTokens), Map.of("ngram_min", "1")));
    }

    /** Prompt lookup with no count given: each row's draft length adapts (from 4, up to 16). */
    static Speculation ngramAdaptive(ModelSession target) {
        return open(target, new SpeculationRequest(Optional.of("ngram"), Optional.empty(), OptionalInt.empty(), Map.of("ngram_min", "1")));
    }

    static Speculation draftModel(ModelSession target, Path draft, int draftTokens) {
        return open(target, new SpeculationRequest(Optional.empty(), Optional.of(draft), OptionalInt.of(draftTokens), Map.of()));
    }

    static Speculation open(ModelSession target, SpeculationRequest request) {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        SpeculationPlan plan = new SpeculationPlanner(registry).resolve(request).orElseThrow();
        return Speculation.open(plan, target, registry, line -> { });
    }

    /** {@link TruncatedDraft#write}: the target's first {@code layers} layers as a cheap draft. */
    static Path truncated(Path source, int layers, Path into) {
        try {
            return TruncatedDraft.write(source, layers, into);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
