package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import panamax.api.model.ChatMessage;
import panamax.api.plan.KvScheme;
import panamax.api.model.LoadOptions;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.PrefixCache;
import panamax.engine.generate.SamplingParams;
import panamax.engine.parity.ParityReference;
import panamax.engine.plugins.PluginRegistry;

/**
 * {@code panamax generate} and {@code chat} on the llama-tiny fixture, and the generation engine's
 * greedy ids (single and left-padded batch) against the Hugging Face reference.
 */
class GenerateCommandTest {
    private record Run(int exit, String out, String err) {
    }

    private static Path fixture(String name) {
        Path dir = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures")).resolve(name);
        assertTrue(Files.isDirectory(dir), "fixture folder missing: " + dir.toAbsolutePath() + " (set -Dpanamax.fixtures)");
        return dir;
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The generated text: everything before the final stats line. */
    private static String text(Run r) {
        String out = r.out();
        int statsLine = out.lastIndexOf("\n[");
        assertTrue(statsLine >= 0, "no stats line in: " + out);
        return out.substring(0, statsLine);
    }

    private static String statsLine(Run r) {
        return r.out().substring(r.out().lastIndexOf("\n[") + 1).strip();
    }

    @Test
    void aFixedSeedGivesTheSameTextTwiceAndEndsWithStats() {
        String model = fixture("llama-tiny").toString();
        String[] args = {"generate", "--model", model, "--prompt", "Tell me a story", "--max-tokens", "24", "--temp", "0.9",
                "--top-p", "0.95", "--seed", "7"};
        Run first = run(args), second = run(args);
        assertEquals(0, first.exit(), first.err());
        assertEquals(text(first), text(second));
        assertTrue(statsLine(first).matches("\\[(length|eos)] prompt: \\d+ tokens, [\\d.]+ tok/s \\| generation: \\d+ tokens, [\\d.]+ tok/s"
                + " \\| peak KV: [\\d.]+ \\w?i?B \\| peak memory: [\\d.]+ \\w?i?B"), statsLine(first));
        assertTrue(first.err().contains("loaded llama-tiny"), first.err());
        Run otherSeed = run("generate", "--model", model, "--prompt", "Tell me a story", "--max-tokens", "24", "--temp", "0.9",
                "--top-p", "0.95", "--seed", "8");
        assertNotEquals(text(first), text(otherSeed));
    }

    @Test
    void severalPromptsRunAsOneBatchWithTheSameTextAsAlone() {
        String model = fixture("llama-tiny").toString();
        Run batch = run("generate", "--model", model, "--prompt", "Hi", "--prompt", "A much longer second prompt", "--max-tokens", "8");
        Run alone = run("generate", "--model", model, "--prompt", "A much longer second prompt", "--max-tokens", "8");
        assertEquals(0, batch.exit(), batch.err());
        String second = text(batch).substring(text(batch).indexOf("--- 2 ---\n") + "--- 2 ---\n".length());
        assertEquals(text(alone), second);
        assertTrue(statsLine(batch).matches("\\[(length|eos),(length|eos)] prompt: .*"), statsLine(batch));
    }

    @Test
    void quantizedKvAndPlainPromptsRun() {
        Run r = run("generate", "--model", fixture("qwen3-tiny").toString(), "--prompt", "plain text", "--no-chat-template",
                "--max-tokens", "5", "--kv-bits", "4", "--kv-group-size", "32");
        assertEquals(0, r.exit(), r.err());
        assertTrue(statsLine(r).contains("generation: 5 tokens") || statsLine(r).startsWith("[eos]"), statsLine(r));
    }

    @Test
    void runningPastTheTrainedContextWarnsOnStandardError() {
        Run r = run("generate", "--model", fixture("llama-tiny").toString(), "--prompt", "many words ".repeat(150), "--max-tokens", "2");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("exceeds the 256 positions the model was trained for"), r.err());
    }

    @Test
    void aCodecThatCannotEncodeTheModelIsAFailureNamingIt() {
        Run r = run("generate", "--model", fixture("llama-tiny").toString(), "--prompt", "x", "--kv-bits", "4", "--kv-group-size", "32");
        assertEquals(Cli.FAILED, r.exit());
        assertTrue(r.err().contains("group_size"), r.err());
    }

    @Test
    void progressBarsGoToStandardErrorOnlyWhenAskedAndCopiedWeightsGiveTheSameText() {
        String model = fixture("llama-tiny").toString();
        String[] common = {"generate", "--model", model, "--prompt", "many words ".repeat(40), "--no-chat-template",
                "--max-tokens", "6", "--prefill-chunk", "16"};
        Run shown = run(concat(common, "--progress", "always", "--weights-memory", "copy"));
        assertEquals(0, shown.exit(), shown.err());
        assertTrue(shown.err().contains("\rloading [") && shown.err().contains("100% "), shown.err());
        assertTrue(shown.err().contains("\rprefill [") && shown.err().contains("tok/s"), shown.err());
        assertTrue(!shown.out().contains("\r") && !shown.out().contains("loading ["), shown.out());
        Run hidden = run(concat(common, "--progress", "never"));
        assertEquals(0, hidden.exit(), hidden.err());
        assertTrue(!hidden.err().contains("\r"), hidden.err());
        // greedy by default: mapped and copied weights are the same bytes
        assertEquals(text(hidden), text(shown));
        Run bad = run(concat(common, "--weights-memory", "huge"));
        assertEquals(Cli.USAGE, bad.exit());
        assertTrue(bad.err().contains("--weights-memory: expected auto, map or copy, found 'huge'"), bad.err());
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void badSamplingFlagsAreUsageErrorsNamingTheFlag() {
        String model = fixture("llama-tiny").toString();
        Run r = run("generate", "--model", model, "--prompt", "x", "--max-tokens", "0");
        assertEquals(Cli.USAGE, r.exit());
        assertTrue(r.err().contains("--max-tokens must be at least 1"), r.err());
        Run p = run("generate", "--model", model, "--prompt", "x", "--top-p", "1.5");
        assertEquals(Cli.USAGE, p.exit());
        assertTrue(p.err().contains("top_p"), p.err());
    }

    @Test
    void chatRunsTurnsUntilExit() {
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream("Hello\n\nHow are you?\n/exit\nnot read\n".getBytes(StandardCharsets.UTF_8)));
            Run r = run("chat", "--model", fixture("llama-tiny").toString(), "--max-tokens", "6", "--seed", "1", "--temp", "0.5");
            assertEquals(0, r.exit(), r.err());
            assertEquals(2, r.err().lines().filter(l -> l.contains("generation:")).count(), r.err());
        } finally {
            System.setIn(stdin);
        }
    }

    /** Runs one chat turn, "What is the weather?", with {@code extra} flags. */
    private static Run chatTurn(Path model, String... extra) {
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream("What is the weather?\n".getBytes(StandardCharsets.UTF_8)));
            List<String> args = new ArrayList<>(List.of("chat", "--model", model.toString(), "--max-tokens", "4", "--seed", "1"));
            args.addAll(List.of(extra));
            return run(args.toArray(String[]::new));
        } finally {
            System.setIn(stdin);
        }
    }

    private static int promptTokens(Run r) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("prompt: (\\d+) tokens").matcher(r.err());
        assertTrue(m.find(), r.err());
        return Integer.parseInt(m.group(1));
    }

    @Test
    void chatWithToolsRendersThemThroughATemplateThatTakesThemAndRefusesOneThatDoesNot(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException {
        Path tools = dir.resolve("tools.json");
        Files.writeString(tools, "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Weather now\","
                + " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}}}]");
        // qwen3-tiny's weights and tokenizer with the real Qwen3 template, which takes tools
        Path model = dir.resolve("qwen3-tools");
        Files.createDirectory(model);
        for (String f : List.of("config.json", "generation_config.json", "model.safetensors", "tokenizer.json")) {
            Files.copy(fixture("qwen3-tiny").resolve(f), model.resolve(f));
        }
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        var config = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(fixture("qwen3-tiny").resolve("tokenizer_config.json").toFile());
        config.put("chat_template", json.readTree(fixture("tokenizer-qwen3").resolve("tokenizer_config.json").toFile()).get("chat_template").asText());
        json.writeValue(model.resolve("tokenizer_config.json").toFile(), config);

        Run plain = chatTurn(model), withTools = chatTurn(model, "--tools", tools.toString());
        assertEquals(0, withTools.exit(), withTools.err());
        assertTrue(promptTokens(withTools) > promptTokens(plain) + 50, "the tools reached the prompt: " + promptTokens(plain) + " -> " + promptTokens(withTools));

        Run refused = chatTurn(fixture("llama-tiny"), "--tools", tools.toString());
        assertEquals(2, refused.exit(), refused.err());
        assertTrue(refused.err().contains("takes no tools"), refused.err());
        Files.writeString(tools, "[{\"type\": \"function\", \"function\": {\"description\": \"no name\"}}]");
        Run bad = chatTurn(model, "--tools", tools.toString());
        assertEquals(2, bad.exit(), bad.err());
        assertTrue(bad.err().contains("tools.json: [0]") && bad.err().contains("\"name\""), bad.err());
    }

    @Test
    void aChatTurnOnTheKeptCacheGivesTheSameReplyAsAFreshPrefill() {
        try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), fixture("qwen3-tiny"),
                KvScheme.identity(), Optional.empty());
             PrefixCache cache = session.prefixCache()) {
            var tokenizer = session.tokenizer();
            List<ChatMessage> chat = new ArrayList<>(List.of(new ChatMessage("user", "Hello there")));
            int[] first = tokenizer.encode(tokenizer.renderChat(chat, true), false);
            var reply = cache.generate(new GenerationRequest(first, SamplingParams.greedy(), 12, tokenizer.eosIds()),
                    GenerationListener.NONE).results().getFirst();
            chat.add(new ChatMessage("assistant", reply.text()));
            chat.add(new ChatMessage("user", "And then?"));
            int[] second = tokenizer.encode(tokenizer.renderChat(chat, true), false);
            GenerationRequest next = new GenerationRequest(second, SamplingParams.greedy(), 12, tokenizer.eosIds());
            GenerationOutput reused = cache.generate(next, GenerationListener.NONE);
            GenerationOutput fresh = session.generator().generate(next, GenerationListener.NONE);
            assertTrue(reused.stats().cachedTokens() >= first.length - 1, "cached " + reused.stats().cachedTokens());
            assertArrayEquals(fresh.results().getFirst().tokens(), reused.results().getFirst().tokens());
        }
    }

    @Test
    void greedyIdsEqualTheReferenceForOnePromptAndALeftPaddedBatch() {
        for (String name : List.of("llama-tiny", "qwen3-tiny", "gemma3-tiny")) {
            // Chunks of 3 columns make the padded prefill span several forward passes.
            for (int chunk : new int[] {ModelSession.DEFAULT_PREFILL_CHUNK, 3}) checkGreedy(name, chunk);
        }
    }

    private static void checkGreedy(String name, int chunk) {
        Path dir = fixture(name);
        ParityReference ref = ParityReference.read(dir.resolve("reference.safetensors"));
        // the shared fixtures' references come from transformers models cast to bf16 in memory
        try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), dir, KvScheme.identity(),
                Optional.empty(), chunk, line -> { }, LoadOptions.defaults().withBuffers(LoadOptions.BufferPrecision.STORED_DTYPE))) {
            int n = ref.singleGreedy().length;
            GenerationOutput single = session.generator().generate(
                    new GenerationRequest(ref.singleIds(), SamplingParams.greedy(), n, Set.of()), GenerationListener.NONE);
            assertArrayEquals(ref.singleGreedy(), single.results().getFirst().tokens(), name + " single, chunk " + chunk);

            List<GenerationRequest> rows = new ArrayList<>();
            for (int r = 0; r < ref.batchIds().length; r++) {
                int pad = 0;
                while (ref.batchMask()[r][pad] == 0) pad++;
                int[] prompt = Arrays.copyOfRange(ref.batchIds()[r], pad, ref.batchIds()[r].length);
                rows.add(new GenerationRequest(prompt, SamplingParams.greedy(), ref.batchGreedy()[r].length, Set.of()));
            }
            GenerationOutput batch = session.generator().generate(rows, GenerationListener.NONE);
            for (int r = 0; r < rows.size(); r++) {
                assertArrayEquals(ref.batchGreedy()[r], batch.results().get(r).tokens(), name + " batch row " + r + ", chunk " + chunk);
            }
        }
    }
}
