package panamax.engine.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelSpec;
import panamax.api.plan.Batching;
import panamax.api.plan.ExecutionRequirements;
import panamax.api.plan.KvScheme;
import panamax.api.plan.Method;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.DType;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.wiring.Engine;

/**
 * The generation loop on the real Java backend, identity codec and planned layouts, driven by
 * {@link PositionGraph}, whose greedy continuation can be computed by hand.
 */
class GeneratorTest {
    private static final int VOCAB = ByteTokenizer.EOS + 1;
    private static Backend backend;
    private static Engine engine;

    @BeforeAll
    static void start() {
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        engine = Engine.start(registry);
        backend = registry.backends().stream().filter(p -> p.id().equals("java")).findFirst().orElseThrow().provider()
                .create(BackendOptions.defaults());
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    private static Generator generator(PositionGraph graph, int chunk) {
        ModelSpec spec = new ModelSpec("position", "fake", List.of(LayerKvNeed.full(0, 1, PositionGraph.HEAD_DIM),
                LayerKvNeed.full(1, 1, PositionGraph.HEAD_DIM)), DType.F32, 0, VOCAB, 4096);
        KvStateFactory factory = KvStateFactory.of(engine.registry());
        return new Generator(graph, backend, (rows, context) -> KvSession.of(factory.create(engine.planner().resolve(
                new ExecutionRequirements(spec, Optional.of("java"), KvScheme.identity(), Batching.SERIAL, Method.AUTOREGRESSIVE,
                        rows, context, 0, false)), backend, rows)), new ByteTokenizer(), chunk);
    }

    /** The greedy continuation computed from the graph's rule, without any cache. */
    private static int[] expected(PositionGraph graph, int[] prompt, int n, Set<Integer> eos) {
        List<Integer> out = new ArrayList<>();
        int token = prompt[prompt.length - 1];
        for (int position = prompt.length - 1; out.size() < n; position++) {
            token = graph.next(token, position);
            out.add(token);
            if (eos.contains(token)) break;
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int[] prompt(String text) {
        return new ByteTokenizer().encode(text, false);
    }

    @Test
    void greedyDecodingFollowsTheModelPositionByPosition() {
        PositionGraph graph = new PositionGraph(backend, VOCAB);
        int[] prompt = prompt("Hello there");
        GenerationOutput out = generator(graph, 512).generate(new GenerationRequest(prompt, SamplingParams.greedy(), 20, Set.of()),
                GenerationListener.NONE);
        assertArrayEquals(expected(graph, prompt, 20, Set.of()), out.results().getFirst().tokens());
        assertEquals(FinishReason.LENGTH, out.results().getFirst().finish());
        assertEquals(20, graph.forwardCalls, "one prefill pass and one pass per token after the first");
    }

    @Test
    void chunkedPrefillGivesTheSameTokens() {
        PositionGraph graph = new PositionGraph(backend, VOCAB);
        int[] prompt = prompt("a somewhat longer prompt to split");
        List<Integer> progress = new ArrayList<>();
        GenerationOutput out = generator(graph, 5).generate(new GenerationRequest(prompt, SamplingParams.greedy(), 8, Set.of()),
                new GenerationListener() {
                    @Override
                    public void onPrefill(int done, int total) {
                        progress.add(done);
                    }
                });
        assertArrayEquals(expected(graph, prompt, 8, Set.of()), out.results().getFirst().tokens());
        assertEquals(List.of(5, 10, 15, 20, 25, 30, 33), progress);
    }

    @Test
    void aLeftPaddedBatchGivesEachRowItsOwnContinuation() {
        PositionGraph graph = new PositionGraph(backend, VOCAB);
        int[][] prompts = {prompt("short"), prompt("a much longer prompt"), prompt("mid length")};
        int[] maxTokens = {12, 5, 9};
        // An EOS id that row 2 reaches early, so rows leave the batch at different steps.
        int eos = expected(graph, prompts[2], 9, Set.of())[3];
        List<GenerationRequest> requests = new ArrayList<>();
        for (int r = 0; r < 3; r++) requests.add(new GenerationRequest(prompts[r], SamplingParams.greedy(), maxTokens[r], Set.of(eos)));
        GenerationOutput out = generator(graph, 4).generate(requests, GenerationListener.NONE);
        for (int r = 0; r < 3; r++) {
            int[] want = expected(graph, prompts[r], maxTokens[r], Set.of(eos));
            assertArrayEquals(want, out.results().get(r).tokens(), "row " + r);
            assertEquals(want[want.length - 1] == eos ? FinishReason.EOS : FinishReason.LENGTH, out.results().get(r).finish(), "row " + r);
        }
        assertEquals(FinishReason.EOS, out.results().get(2).finish());
        assertEquals(prompts[0].length + prompts[1].length + prompts[2].length, out.stats().promptTokens());
    }

    @Test
    void theSameSeedGivesTheSameTextAndAnotherSeedDiffers() {
        int[] prompt = prompt("seeded");
        SamplingParams params = SamplingParams.sample(1.5, 1234).withTopK(40).withTopP(0.95);
        GenerationResult a = generator(new PositionGraph(backend, VOCAB), 512)
                .generate(new GenerationRequest(prompt, params, 24, Set.of()), GenerationListener.NONE).results().getFirst();
        GenerationResult b = generator(new PositionGraph(backend, VOCAB), 512)
                .generate(new GenerationRequest(prompt, params, 24, Set.of()), GenerationListener.NONE).results().getFirst();
        GenerationResult c = generator(new PositionGraph(backend, VOCAB), 512)
                .generate(new GenerationRequest(prompt, params.withSeed(99), 24, Set.of()), GenerationListener.NONE).results().getFirst();
        assertArrayEquals(a.tokens(), b.tokens());
        assertEquals(a.text(), b.text());
        assertNotEquals(List.of(a.tokens()), List.of(c.tokens()));
        assertFalse(java.util.Arrays.equals(a.tokens(), c.tokens()));
    }

    @Test
    void aStopStringSplitAcrossTokensEndsTheRowAndIsTrimmed() {
        PositionGraph graph = new PositionGraph(backend, VOCAB);
        int[] prompt = prompt("stop");
        int[] free = expected(graph, prompt, 30, Set.of());
        // Two consecutive generated bytes that are printable ASCII form the stop string.
        int at = -1;
        for (int i = 3; i + 1 < free.length && at < 0; i++) {
            if (free[i] >= 0x21 && free[i] < 0x7F && free[i + 1] >= 0x21 && free[i + 1] < 0x7F) at = i;
        }
        assertTrue(at > 0, "the graph's continuation holds two printable bytes in a row");
        String stop = new String(new byte[] {(byte) free[at], (byte) free[at + 1]}, StandardCharsets.US_ASCII);
        StringBuilder streamed = new StringBuilder();
        GenerationResult result = generator(graph, 512).generate(
                new GenerationRequest(prompt, SamplingParams.greedy(), 30, Set.of(), List.of(stop)), new GenerationListener() {
                    @Override
                    public void onText(int row, String delta) {
                        streamed.append(delta);
                    }
                }).results().getFirst();
        String full = new ByteTokenizer().decode(java.util.Arrays.copyOf(free, at + 2), true);
        assertEquals(FinishReason.STOP_STRING, result.finish());
        assertEquals(full.substring(0, full.indexOf(stop)), result.text());
        assertEquals(result.text(), streamed.toString());
        assertFalse(result.text().contains(stop));
    }

    @Test
    void statsCountTokensAndTheCacheIsReleased() {
        long before = backend.memoryStats().activeBytes();
        GenerationOutput out = generator(new PositionGraph(backend, VOCAB), 512).generate(
                List.of(new GenerationRequest(prompt("one"), SamplingParams.greedy(), 6, Set.of()),
                        new GenerationRequest(prompt("three"), SamplingParams.greedy(), 6, Set.of())), GenerationListener.NONE);
        GenerationStats stats = out.stats();
        assertEquals(8, stats.promptTokens());
        assertEquals(12, stats.generatedTokens());
        assertTrue(stats.peakKvBytes() > 0, "peak KV bytes " + stats.peakKvBytes());
        assertTrue(stats.peakMemoryBytes() > 0);
        assertTrue(stats.prefillTokensPerSecond() > 0 && stats.decodeTokensPerSecond() > 0, stats.summary());
        assertEquals(before, backend.memoryStats().activeBytes(), "KV cache and activations are freed");
    }

    @Test
    void aPrefixCacheReusesTheSharedPrefixAndGivesTheSameTokensAsAFreshCache() {
        PositionGraph graph = new PositionGraph(backend, VOCAB);
        Generator generator = generator(graph, 512);
        int[] first = prompt("turn one");
        try (PrefixCache cache = new PrefixCache(generator, 0)) {
            GenerationResult one = cache.generate(new GenerationRequest(first, SamplingParams.greedy(), 6, Set.of()),
                    GenerationListener.NONE).results().getFirst();
            assertEquals(first.length + 5, cache.cachedTokens());
            // The next turn: the first prompt, the reply, then new text.
            int[] second = concat(first, one.tokens(), prompt(" and two"));
            int calls = graph.forwardCalls;
            GenerationOutput two = cache.generate(new GenerationRequest(second, SamplingParams.greedy(), 6, Set.of()),
                    GenerationListener.NONE);
            assertEquals(first.length + 5, two.stats().cachedTokens(), "everything the cache held was reused");
            assertEquals(6, graph.forwardCalls - calls, "one prefill pass of the new tokens, then decode");
            assertArrayEquals(expected(graph, second, 6, Set.of()), two.results().getFirst().tokens());

            // A prompt that diverges inside the cached text trims back to the common prefix.
            int[] third = concat(first, prompt("!"));
            GenerationOutput three = cache.generate(new GenerationRequest(third, SamplingParams.greedy(), 4, Set.of()),
                    GenerationListener.NONE);
            assertEquals(first.length, three.stats().cachedTokens());
            assertArrayEquals(expected(graph, third, 4, Set.of()), three.results().getFirst().tokens());

            // The same prompt again reuses all but its last token, which must run to give logits.
            GenerationOutput again = cache.generate(new GenerationRequest(third, SamplingParams.greedy(), 4, Set.of()),
                    GenerationListener.NONE);
            assertEquals(third.length - 1, again.stats().cachedTokens());
            assertArrayEquals(three.results().getFirst().tokens(), again.results().getFirst().tokens());
        }
    }

    private static int[] concat(int[]... parts) {
        int n = 0;
        for (int[] p : parts) n += p.length;
        int[] out = new int[n];
        int at = 0;
        for (int[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
