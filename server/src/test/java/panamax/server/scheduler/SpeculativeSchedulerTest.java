package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.RequestPlan;
import panamax.engine.serve.ServeRequest;
import panamax.engine.serve.ServingConfig;
import panamax.engine.serve.ServingPlan;
import panamax.engine.serve.SchedulerObserver;
import panamax.engine.speculative.Speculation;

/**
 * The server's continuous batch decodes speculatively: requests of different prompt lengths,
 * admitted in two waves so a cohort merges into a running batch, each get plain greedy
 * decoding's tokens; a request that asks for logprobs is refused speculation with the plan's
 * reason and still decodes in the same batch, one token per step, with its log-probabilities.
 */
class SpeculativeSchedulerTest {
    private static final List<String> PROMPTS = List.of(
            "The cat sat on the mat. The cat sat on the mat. The cat sat on the",
            "Call me Ishmael.",
            "one two three four one two three four one two three",
            "Once upon a time, a small fox found a lantern in the forest and the lantern was bright, and the fox");
    private static final int TOKENS = 24;

    private static void awaitTokens(Recorder r, int n) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (r.tokens.size() < n) {
            assertTrue(System.nanoTime() < deadline, "the first row produced no tokens in time");
            Thread.onSpinWait();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ngram", "draft-model"})
    void continuousBatchWithDraftsGivesPlainGreedyTokens(String drafter) {
        try (ModelSession session = Models.open("qwen3-tiny")) {
            List<GenerationRequest> requests = new ArrayList<>();
            for (String p : PROMPTS) requests.add(new GenerationRequest(session.tokenizer().encode(p, true), SamplingParams.greedy(), TOKENS, Set.of()));
            List<int[]> expected = new ArrayList<>();
            for (GenerationRequest r : requests) expected.add(session.generator().generate(r, GenerationListener.NONE).results().getFirst().tokens());
            ServingPlan plan = ServingPlan.resolve(session.plan(1, 0), session::layoutCapabilities, ServingConfig.defaults().withMaxBatch(8));
            try (Speculation speculation = drafter.equals("ngram") ? Drafts.ngram(session, 4) : Drafts.draftModel(session, Models.directory("qwen3-tiny"), 3);
                 BatchScheduler scheduler = BatchScheduler.start(session, plan, SchedulerObserver.NONE, speculation)) {
                List<Recorder> recorders = new ArrayList<>();
                for (int i = 0; i < requests.size(); i++) {
                    Recorder r = new Recorder();
                    recorders.add(r);
                    // the third asks for logprobs; the last two join while the first two decode
                    scheduler.submit(new ServeRequest(requests.get(i), i == 2 ? 2 : -1, r));
                    if (i == 1) awaitTokens(recorders.getFirst(), 2);
                }
                for (int i = 0; i < requests.size(); i++) {
                    Recorder r = recorders.get(i);
                    r.await(120);
                    assertArrayEquals(expected.get(i), r.ids(), drafter + ": request " + i + " differs from plain greedy");
                    RequestPlan p = r.admitted.join();
                    if (i == 2) {
                        assertFalse(p.speculative(), "a logprobs request is refused speculation");
                        assertTrue(p.speculationReason().startsWith("logprobs requested"), p.speculationReason());
                        assertTrue(r.tokens.stream().allMatch(t -> !Double.isNaN(t.logprob()) && t.top().size() == 2), "its tokens carry log-probabilities");
                    } else {
                        assertTrue(p.speculative(), p.speculationReason());
                    }
                }
                System.out.println(drafter + ": " + speculation.stats().summary());
                assertTrue(speculation.stats().verifyPasses() > 0, "no step verified drafts: " + speculation.stats().summary());
            }
        }
    }
}
