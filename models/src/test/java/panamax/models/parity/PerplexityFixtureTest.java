package panamax.models.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import panamax.api.model.LoadOptions;
import panamax.api.plan.KvScheme;
import panamax.engine.eval.Perplexity;
import panamax.engine.eval.PerplexityReport;
import panamax.engine.generate.ModelSession;
import panamax.engine.parity.ParityReference;
import panamax.engine.plugins.PluginRegistry;
import panamax.model.support.config.HfConfig;

/**
 * {@link Perplexity} on every fixture model's reference prompt ({@code single.ids}, T = 24 tokens),
 * against a mean negative log-likelihood computed here in double (log-softmax) from the reference.
 *
 * <p>{@code Perplexity} cuts the ids into consecutive, non-overlapping windows of {@code w + 1}
 * tokens, each scored from an empty cache, dropping a tail shorter than a window. So the reference
 * logits (one causal pass over all T tokens) give exactly the first window's logits, whatever
 * {@code w}: windows after the first restart the context and have no reference. Hence, for
 * {@code w} = T − 1 (one window, the whole text), 8 (shorter than the text) and 5 (does not divide
 * T − 1 = 23):
 * <ul>
 *   <li>the first window ({@code maxWindows = 1}; for w = T − 1 the whole text) against the
 *       reference logits, within {@link #REFERENCE_TOLERANCE};</li>
 *   <li>all windows against the same windows scored here with {@link ModelSession#scoreLogits}
 *       (each window's first w ids, targets the next w), within {@link #SAME_PATH_TOLERANCE}:
 *       this checks the windowing, the tail and the averaging, not the model.</li>
 * </ul>
 * The f32 path with identity KV on the java backend (or {@code -Dpanamax.test.backend}), buffers
 * as the reference made them ({@code FixtureParityTest}'s setting).
 */
class PerplexityFixtureTest {
    /**
     * |Δ mean NLL| against the reference: each term is log-sum-exp(row) − row[target], and both
     * parts move by at most max |Δlogit|, which FixtureParityTest holds under 1e-4; so 2e-4.
     * Measured on llama-, qwen3- and gemma3-tiny: at most 2.7e-7.
     */
    static final double REFERENCE_TOLERANCE = 2e-4;
    /** The same logits summed in the same order: only double rounding (measured: at most 8.9e-16). */
    static final double SAME_PATH_TOLERANCE = 1e-9;
    /**
     * |Δ mean NLL| of affine 4-bit KV (group 32) against identity KV on qwen3-tiny's reference
     * prompt. Measured: 0.0359 at w = 23 and 0.0765 at w = 8 (random weights and a 32-wide group
     * make a coarse case); the bound is about twice the larger. Deterministic arithmetic, so the
     * margin covers rounding differences between CPUs and kernels, not chance.
     */
    static final double KV4_TOLERANCE = 0.15;
    /** 4-bit KV must move the loss at least this much (measured ≥ 0.0359): a codec silently left out would not. */
    static final double KV4_MOVES = 1e-3;
    static final int[] WINDOWS_BELOW_T = {8, 5};

    private static ModelSession open(Path dir, KvScheme kv) {
        return ModelSession.open(PluginRegistry.discover(Optional.empty()), dir, kv, Optional.of(FixtureParityTest.backend()),
                ModelSession.DEFAULT_PREFILL_CHUNK, line -> { }, LoadOptions.defaults().withBuffers(LoadOptions.BufferPrecision.STORED_DTYPE));
    }

    /** Mean of log-sum-exp(logits[p]) − logits[p][ids[p + 1]] over p in [0, count), in double. */
    static double meanNll(float[] logits, int vocab, int[] ids, int count) {
        double total = 0;
        for (int p = 0; p < count; p++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < vocab; i++) max = Math.max(max, logits[p * vocab + i]);
            double sum = 0;
            for (int i = 0; i < vocab; i++) sum += Math.exp((double) logits[p * vocab + i] - max);
            total += max + Math.log(sum) - logits[p * vocab + ids[p + 1]];
        }
        return total / count;
    }

    /** The windowed expectation, each window scored by {@code session} on its own. */
    private static double windowedNll(ModelSession session, int[] ids, int window) {
        int windows = (ids.length - 1) / window;
        double total = 0;
        for (int w = 0; w < windows; w++) {
            int[] chunk = Arrays.copyOfRange(ids, w * window, w * window + window + 1);
            total += meanNll(session.scoreLogits(Arrays.copyOf(chunk, window)), session.spec().vocabSize(), chunk, window) * window;
        }
        return total / ((double) windows * window);
    }

    private static void assertShape(PerplexityReport r, int windows, int window) {
        assertEquals(windows, r.windows(), r.toJson());
        assertEquals(window, r.window(), r.toJson());
        assertEquals((long) windows * window, r.tokens(), r.toJson());
        assertEquals(Math.exp(r.meanNll()), r.perplexity(), 1e-12);
    }

    @TestFactory
    Stream<DynamicTest> windowedLossMatchesTheReferenceLogits() {
        return Fixtures.rootModelFolders().stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> {
            String modelType = HfConfig.read(dir.resolve("config.json")).string("model_type").orElse("?");
            if (FixtureParityTest.CHECKED_ELSEWHERE.contains(modelType)) {
                Assumptions.abort(dir.getFileName() + " (model_type " + modelType + ") has its model plugin outside this module");
            }
            ParityReference ref = ParityReference.read(dir.resolve("reference.safetensors"));
            int[] ids = ref.singleIds();
            int t = ids.length;
            try (ModelSession session = open(dir, KvScheme.identity())) {
                PerplexityReport whole = Perplexity.measure(session, ids, t - 1, 0, (done, total) -> { });
                assertShape(whole, 1, t - 1);
                double expectedWhole = meanNll(ref.singleLogits(), ref.vocab(), ids, t - 1);
                System.out.printf("%s w=%d engine %.6f reference %.6f diff %.3e%n", dir.getFileName(), t - 1, whole.meanNll(), expectedWhole, whole.meanNll() - expectedWhole);
                assertEquals(expectedWhole, whole.meanNll(), REFERENCE_TOLERANCE, dir + " whole text");
                for (int window : WINDOWS_BELOW_T) {
                    PerplexityReport first = Perplexity.measure(session, ids, window, 1, (done, total) -> { });
                    assertShape(first, 1, window);
                    System.out.printf("%s w=%d first window diff %.3e%n", dir.getFileName(), window,
                            first.meanNll() - meanNll(ref.singleLogits(), ref.vocab(), ids, window));
                    assertEquals(meanNll(ref.singleLogits(), ref.vocab(), ids, window), first.meanNll(), REFERENCE_TOLERANCE,
                            dir + " first window of " + window);
                    int[] calls = {0};
                    PerplexityReport all = Perplexity.measure(session, ids, window, 0, (done, total) -> {
                        assertEquals(++calls[0], done);
                        assertEquals((t - 1) / window, total);
                    });
                    assertShape(all, (t - 1) / window, window);
                    assertEquals(all.windows(), calls[0]);
                    double expected = windowedNll(session, ids, window);
                    System.out.printf("%s w=%d engine %.6f expected %.6f diff %.3e%n", dir.getFileName(), window, all.meanNll(), expected,
                            all.meanNll() - expected);
                    assertEquals(expected, all.meanNll(), SAME_PATH_TOLERANCE, dir + " windows of " + window);
                }
            }
        }));
    }

    /** The quantized-KV path ({@code --kv-bits 4 --kv-group-size 32}) against its own identity run, all windows. */
    @Test
    void fourBitKvStaysNearIdentity() {
        Path dir = Fixtures.root().resolve("qwen3-tiny"); // head dim 32: affine groups of 32 fit
        int[] ids = ParityReference.read(dir.resolve("reference.safetensors")).singleIds();
        KvScheme kv4 = new KvScheme("affine", Map.of("bits", "4", "group_size", "32"), OptionalInt.empty(), OptionalInt.empty(), Optional.empty());
        for (int window : new int[]{ids.length - 1, 8}) {
            double identity, quantized;
            try (ModelSession session = open(dir, KvScheme.identity())) {
                identity = Perplexity.measure(session, ids, window, 0, (done, total) -> { }).meanNll();
            }
            try (ModelSession session = open(dir, kv4)) {
                quantized = Perplexity.measure(session, ids, window, 0, (done, total) -> { }).meanNll();
            }
            System.out.printf("qwen3-tiny w=%d identity %.6f kv4 %.6f delta %.6f%n", window, identity, quantized, quantized - identity);
            double delta = Math.abs(quantized - identity);
            assertTrue(delta <= KV4_TOLERANCE, "w=" + window + ": identity " + identity + ", 4-bit KV " + quantized);
            assertTrue(delta >= KV4_MOVES, "w=" + window + ": 4-bit KV did not move the loss: identity " + identity + ", 4-bit KV " + quantized);
        }
    }

    @Test
    void aTextShorterThanOneWindowIsRefused() {
        Path dir = Fixtures.root().resolve("llama-tiny");
        int[] ids = ParityReference.read(dir.resolve("reference.safetensors")).singleIds();
        try (ModelSession session = open(dir, KvScheme.identity())) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> Perplexity.measure(session, ids, ids.length, 0, (done, total) -> { }));
            assertTrue(e.getMessage().contains(ids.length + " tokens"), e.getMessage());
        }
    }
}
