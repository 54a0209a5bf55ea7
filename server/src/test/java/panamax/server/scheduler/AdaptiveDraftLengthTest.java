package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import panamax.api.draft.Draft;
import panamax.api.draft.DraftRow;
import panamax.api.draft.Drafter;
import panamax.api.kv.PluginParams;
import panamax.api.plan.ChosenPlugin;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.speculative.DraftLength;
import panamax.engine.speculative.Speculation;
import panamax.engine.speculative.SpeculationPlan;
import panamax.engine.speculative.SpeculationStats;

/**
 * Without a count, each row's draft length adapts to what its drafts earn: a row that copies its
 * prompt drafts past the starting count (fewer verification passes than a fixed count needs), rows
 * whose drafts all miss shrink them to one token, and either way the output is
 * plain greedy's, alone and in a batch whose rows hold different lengths in one step.
 */
class AdaptiveDraftLengthTest {
    private static final int TOKENS = 64;

    @Test
    void aCopyingRowDraftsPastTheStartingCountAndKeepsPlainGreedyOutput() {
        try (ModelSession session = Models.open(Models.DEMO)) {
            // the demo model copies a paragraph it is asked to repeat (bench speculative's copy prompt): prompt lookup drafts hold
            String paragraph = "Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse, and nothing"
                    + " particular to interest me on shore, I thought I would sail about a little and see the watery part of the world.";
            String text = paragraph + "\n\nThe same paragraph again:\n\nCall me Ishmael. Some years ago,";
            GenerationRequest copying = new GenerationRequest(session.tokenizer().encode(text, true), SamplingParams.greedy(), TOKENS, Set.of());
            GenerationRequest story = new GenerationRequest(session.tokenizer().encode("Call me Ishmael.", true), SamplingParams.greedy(), TOKENS, Set.of());
            GenerationOutput plain = session.generator().generate(List.of(copying, story), GenerationListener.NONE);
            SpeculationStats fixed, adaptive;
            GenerationOutput fast;
            try (Speculation four = Drafts.ngram(session, 4)) {
                session.generator().withSpeculation(four).generate(List.of(copying), GenerationListener.NONE);
                fixed = four.stats().snapshot();
            }
            try (Speculation grows = Drafts.ngramAdaptive(session)) {
                session.generator().withSpeculation(grows).generate(List.of(copying), GenerationListener.NONE);
                adaptive = grows.stats().snapshot();
                fast = session.generator().withSpeculation(grows).generate(List.of(copying, story), GenerationListener.NONE);
            }
            assertTrue(fixed.tokensPerRowStep() <= 5.0, "a fixed count of 4 gains at most 5 tokens a step: " + fixed.summary());
            assertTrue(adaptive.tokensPerRowStep() > 6.0, "the copying row's drafts should grow past 4: " + adaptive.summary() + " (fixed: " + fixed.summary() + ")");
            assertTrue(adaptive.verifyPasses() < fixed.verifyPasses(), "adaptive " + adaptive.summary() + ", fixed " + fixed.summary());
            for (int r = 0; r < 2; r++) {
                assertArrayEquals(plain.results().get(r).tokens(), fast.results().get(r).tokens(), "row " + r);
            }
        }
    }

    @Test
    void rowsWhoseDraftsMissShrinkThemToOneAndKeepPlainGreedyOutput() {
        try (ModelSession session = Models.open(Models.DEMO)) {
            List<GenerationRequest> rows = new ArrayList<>();
            for (String p : List.of("Call me Ishmael.", "The whale", "Mr. Speaker, the state of the Union is"))
                rows.add(new GenerationRequest(session.tokenizer().encode(p, true), SamplingParams.greedy(), TOKENS, Set.of()));
            GenerationOutput plain = session.generator().generate(rows, GenerationListener.NONE);
            int vocab = session.spec().vocabSize();
            List<Integer> asked = new ArrayList<>();
            // drafts the last id of the vocabulary, which greedy never picks here: every draft is rejected at once
            Drafter wrong = new Drafter() {
                @Override
                public List<Draft> draft(List<DraftRow> batch, int k) {
                    asked.add(k);
                    int[] ids = new int[k];
                    Arrays.fill(ids, vocab - 1);
                    return batch.stream().map(r -> Draft.of(ids.clone())).toList();
                }

                @Override
                public void close() {
                }
            };
            SpeculationPlan plan = new SpeculationPlan(new ChosenPlugin("drafter", "always-wrong", "test", "test"), PluginParams.of(Map.of()),
                    DraftLength.adaptiveFrom(4), Optional.empty(), "test", List.of());
            try (Speculation adaptive = Speculation.of(plan, wrong, vocab)) {
                GenerationOutput fast = session.generator().withSpeculation(adaptive).generate(rows, GenerationListener.NONE);
                for (int r = 0; r < rows.size(); r++) assertArrayEquals(plain.results().get(r).tokens(), fast.results().get(r).tokens(), "row " + r);
                SpeculationStats s = adaptive.stats();
                assertEquals(0, s.accepted(), s.summary());
                // 4, 3, 2, then one token per row and step for the rest
                assertEquals(List.of(4, 3, 2, 1), asked.subList(0, 4), asked.toString());
                assertTrue(asked.subList(3, asked.size()).stream().allMatch(k -> k == 1), asked.toString());
                assertEquals(rows.size() * (TOKENS - 1), s.produced(), s.summary()); // each row's first token comes from its prefill
            }
        }
    }
}
