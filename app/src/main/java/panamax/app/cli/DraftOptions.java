package panamax.app.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.SpeculationPlan;
import panamax.engine.speculative.SpeculationPlanner;
import panamax.engine.speculative.SpeculationRequest;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The speculative-decoding flags of {@code generate}, {@code chat} and {@code serve} (mlx-lm's names where they exist). */
public final class DraftOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--draft", paramLabel = "ID",
            description = "decode speculatively with this drafter: ngram (prompt lookup over the row's own tokens) or draft-model"
                    + " (implied by --draft-model); panamax plugins lists the installed ones")
    String drafter;

    @Option(names = "--draft-model", paramLabel = "DIR", description = "a smaller model with the same tokenizer that drafts tokens for this one")
    Path draftModel;

    @Option(names = "--num-draft-tokens", paramLabel = "K", description = "tokens drafted per row and step, fixed (default: 3 for draft-model; for ngram a per-row length"
                    + " that starts at 4, grows by 2 after a fully accepted draft up to 16 and shrinks by 1 after a rejection)")
    Integer draftTokens;

    @Option(names = "--ngram-max", paramLabel = "N", description = "ngram drafter: the longest suffix looked up (default 3)")
    Integer ngramMax;

    @Option(names = "--ngram-min", paramLabel = "N", description = "ngram drafter: the shortest suffix looked up (default 2)")
    Integer ngramMin;

    /**
     * The planned speculation, loaded for {@code target} (its plan is printed on {@code err}), or
     * empty when no drafter was asked for.
     *
     * @throws ParameterException when drafter flags are given without a drafter
     */
    Optional<Speculation> open(ModelSession target, Optional<Path> pluginsDir, PrintWriter err) {
        Map<String, String> params = new HashMap<>();
        if (ngramMax != null) params.put("ngram_max", ngramMax.toString());
        if (ngramMin != null) params.put("ngram_min", ngramMin.toString());
        if (drafter == null && draftModel == null) {
            if (!params.isEmpty() || draftTokens != null) {
                throw new ParameterException(command.commandLine(), "--num-draft-tokens, --ngram-max and --ngram-min need a drafter:"
                        + " add --draft ngram or --draft-model DIR");
            }
            return Optional.empty();
        }
        SpeculationRequest request;
        try {
            request = new SpeculationRequest(Optional.ofNullable(drafter), Optional.ofNullable(draftModel),
                    draftTokens == null ? OptionalInt.empty() : OptionalInt.of(draftTokens), params);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), "--num-draft-tokens: " + e.getMessage());
        }
        PluginRegistry registry = PluginRegistry.discover(pluginsDir);
        SpeculationPlan plan = new SpeculationPlanner(registry).resolve(request).orElseThrow();
        plan.describe().forEach(err::println);
        return Optional.of(Speculation.open(plan, target, registry, err::println));
    }
}
