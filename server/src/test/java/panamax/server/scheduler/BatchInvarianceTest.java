package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.Completion;
import panamax.engine.serve.ServeRequest;
import panamax.engine.serve.ServingConfig;

/**
 * A seeded row gives the same tokens from bit-identical logits whether it runs alone or in a batch
 * of 2 to 8 rows of other prompt lengths (left-padded prefill, merged with a running row), and
 * whether its prompt starts from a prefix-cache hit or not, and however its prompt is cut into prefill passes.
 */
class BatchInvarianceTest {
    static final List<String> MODELS = Models.ALL;
    private static final String PROMPT = "Once upon a time, a small fox found a lantern in the forest and";
    private static final int TOKENS = 12;
    private static final long SEED = 20240917L;

    @ParameterizedTest
    @FieldSource("MODELS")
    void aSeededRowIsBitIdenticalAloneAndInBatchesWithPaddingAndPrefixHits(String model) {
        try (ModelSession session = Models.open(model)) {
            int[] prompt = session.tokenizer().encode(PROMPT, true);
            assertTrue(prompt.length >= 8, "the prompt has " + prompt.length + " tokens");
            int vocab = session.spec().vocabSize();
            GenerationRequest target = new GenerationRequest(prompt, SamplingParams.sample(0.8, SEED), TOKENS, Set.of());
            ServingConfig config = ServingConfig.defaults().withMaxBatch(8);
            List<String> report = new ArrayList<>();
            boolean equal = true;
            int compared = 0;

            Recorder alone = new Recorder();
            try (BatchScheduler s = Models.scheduler(session, config.withPrefixCacheShare(0))) {
                s.submit(new ServeRequest(target, -1, alone));
                alone.await(60);
                assertEquals(TOKENS, alone.ids().length);
                assertEquals(List.of(1), alone.batchRows.stream().distinct().toList(), "alone: the forward passes' rows");
                for (int others = 1; others <= 7; others++) {
                    Recorder batched = runInBatch(s, target, others, vocab, new Random(SEED + others));
                    int widest = batched.batchRows.stream().max(Integer::compare).orElse(0);
                    assertEquals(others + 1, widest, "with " + others + " others: the widest forward pass the row took part in");
                    equal &= compare("batch of " + (others + 1), alone, batched, report);
                    compared++;
                }
            }
            // prefix reuse: a row holding the prompt's first tokens is cached, then the target starts from it
            int prefix = Math.min(6, prompt.length / 2);
            for (int others : new int[] {0, 3}) {
                try (BatchScheduler s = Models.scheduler(session, config)) {
                    Recorder warm = new Recorder();
                    s.submit(new ServeRequest(new GenerationRequest(Arrays.copyOf(prompt, prefix), SamplingParams.greedy(), 1, Set.of()), -1, warm));
                    warm.await(60);
                    Recorder hit = others == 0 ? submitAlone(s, target) : runInBatch(s, target, others, vocab, new Random(SEED - others));
                    Completion c = hit.await(60);
                    assertEquals(prefix, c.cachedTokens(), "tokens taken from the prefix cache (" + c.plan().prefixReason() + ")");
                    equal &= compare("prefix hit of " + prefix + " tokens, batch of " + (others + 1), alone, hit, report);
                    compared++;
                }
            }
            // prefill passes of 3 tokens: the pacer cuts a cohort's passes by their measured time, so the cut must not matter
            try (BatchScheduler s = Models.scheduler(session, config.withPrefixCacheShare(0).withPrefillChunk(3))) {
                equal &= compare("prefill in passes of 3 tokens", alone, submitAlone(s, target), report);
                equal &= compare("passes of 3 tokens, batch of 4", alone, runInBatch(s, target, 3, vocab, new Random(SEED + 11)), report);
                compared += 2;
            }
            try (BatchScheduler s = Models.scheduler(session, config.withPrefillChunk(3))) {
                Recorder warm = new Recorder();
                s.submit(new ServeRequest(new GenerationRequest(Arrays.copyOf(prompt, prefix), SamplingParams.greedy(), 1, Set.of()), -1, warm));
                warm.await(60);
                Recorder hit = submitAlone(s, target);
                assertEquals(prefix, hit.await(60).cachedTokens(), "tokens taken from the prefix cache");
                equal &= compare("prefix hit, the rest in passes of 3", alone, hit, report);
                compared++;
            }
            System.out.println(model + ":\n  " + String.join("\n  ", report));
            assertEquals(12, compared);
            assertTrue(equal, model + ": a row's ids or logits depend on its batch (" + TOKENS + " steps x " + vocab + " logits each):\n  "
                    + String.join("\n  ", report));
        }
    }

    private static Recorder submitAlone(BatchScheduler s, GenerationRequest target) {
        Recorder r = new Recorder();
        s.submit(new ServeRequest(target, -1, r));
        r.await(60);
        return r;
    }

    /**
     * Runs {@code target} with {@code others} requests of random prompt lengths: the first holds the
     * scheduler at its admission until every request is queued, so the target and the rest are
     * prefilled as one left-padded cohort and merged into the first's running row.
     */
    private static Recorder runInBatch(BatchScheduler s, GenerationRequest target, int others, int vocab, Random random) {
        List<Recorder> rows = new ArrayList<>();
        Gate gate = new Gate();
        Recorder mine = new Recorder();
        int targetAt = 1 + random.nextInt(others);
        try {
            for (int i = 0; i < others + 1; i++) {
                Recorder r = i == 0 ? gate : i == targetAt ? mine : new Recorder();
                GenerationRequest g = i == targetAt ? target : other(target.promptIds()[0], vocab, random);
                s.submit(new ServeRequest(g, -1, r));
                rows.add(r);
                if (i == 0) gate.admitted.join(); // the scheduler waits in the gate's admission: the rest queue as one cohort
            }
        } finally {
            gate.open();
        }
        for (Recorder r : rows) r.await(120);
        return mine;
    }

    /** A sampled request of 1 to 32 random ids (none starting like the target, so none is a prefix hit) and 12 to 16 tokens. */
    private static GenerationRequest other(int targetFirst, int vocab, Random random) {
        int[] ids = new int[1 + random.nextInt(32)];
        for (int i = 0; i < ids.length; i++) {
            do ids[i] = 3 + random.nextInt(vocab - 3); while (i == 0 && ids[i] == targetFirst);
        }
        return new GenerationRequest(ids, SamplingParams.sample(0.5 + random.nextDouble(), random.nextLong()), 12 + random.nextInt(5), Set.of());
    }

    /** Adds a line for {@code label} to {@code report}; whether ids and every logit match bit for bit. */
    private static boolean compare(String label, Recorder alone, Recorder other, List<String> report) {
        int[] a = alone.ids(), b = other.ids();
        int steps = Math.min(alone.logits.size(), other.logits.size());
        int firstIdDiff = -1;
        for (int i = 0; i < Math.min(a.length, b.length) && firstIdDiff < 0; i++) if (a[i] != b[i]) firstIdDiff = i;
        int comparable = firstIdDiff < 0 ? steps : firstIdDiff + 1; // after a different id the rows see different inputs
        long differ = 0, total = 0;
        double max = 0;
        int firstStep = -1;
        for (int step = 0; step < comparable; step++) {
            float[] x = alone.logits.get(step), y = other.logits.get(step);
            for (int v = 0; v < x.length; v++) {
                total++;
                if (Float.floatToRawIntBits(x[v]) != Float.floatToRawIntBits(y[v])) {
                    differ++;
                    max = Math.max(max, Math.abs((double) x[v] - y[v]));
                    if (firstStep < 0) firstStep = step;
                }
            }
        }
        boolean same = Arrays.equals(a, b) && differ == 0 && alone.logits.size() == other.logits.size();
        report.add(String.format("%-34s %s; ids %s; %d of %d logits differ%s (rows per pass %s)", label, same ? "EQUAL" : "DIFFERENT",
                firstIdDiff < 0 && a.length == b.length ? "equal" : "differ from step " + firstIdDiff + " " + Arrays.toString(a) + " vs "
                        + Arrays.toString(b), differ, total, differ == 0 ? "" : String.format(", max |diff| %.3g, first at step %d", max, firstStep),
                other.batchRows.stream().distinct().toList()));
        return same;
    }
}
