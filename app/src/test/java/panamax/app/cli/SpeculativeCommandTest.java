package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code generate --draft ngram / --draft-model}: the same text as plain greedy, the plan and counters on standard error, one-line mistakes. */
class SpeculativeCommandTest {
    private record Run(int exit, String out, String err) {
    }

    private static String fixture(String name) {
        Path dir = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures")).resolve(name);
        assertTrue(Files.isDirectory(dir), "fixture folder missing: " + dir.toAbsolutePath() + " (set -Dpanamax.fixtures)");
        return dir.toString();
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The text before the stats line's numbers (tok/s differ between runs). */
    private static String text(Run r) {
        return r.out().substring(0, r.out().lastIndexOf(" prompt: "));
    }

    @Test
    void speculativeGenerateWritesPlainGreedysTextAndReportsItsPlanAndCounters() {
        String model = fixture("qwen3-tiny");
        String prompt = "The cat sat on the mat. The cat sat on the mat. The cat";
        Run plain = run("generate", "--model", model, "--prompt", prompt, "--prompt", "Hi", "--max-tokens", "30", "--progress", "never");
        Run ngram = run("generate", "--model", model, "--prompt", prompt, "--prompt", "Hi", "--max-tokens", "30", "--progress", "never",
                "--draft", "ngram", "--num-draft-tokens", "3", "--ngram-max", "4");
        Run draft = run("generate", "--model", model, "--prompt", prompt, "--prompt", "Hi", "--max-tokens", "30", "--progress", "never",
                "--draft-model", model);
        assertEquals(0, plain.exit(), plain.err());
        assertEquals(0, ngram.exit(), ngram.err());
        assertEquals(0, draft.exit(), draft.err());
        assertEquals(text(plain), text(ngram));
        assertEquals(text(plain), text(draft));
        assertTrue(ngram.err().contains("speculative: drafter ngram") && ngram.err().contains("3 draft tokens per step, ngram_max=4, ngram_min=2"), ngram.err());
        assertTrue(ngram.err().contains("drafted tokens accepted"), ngram.err());
        assertTrue(draft.err().contains("speculative: drafter draft-model") && draft.err().contains("declares needsDraftModel"), draft.err());
    }

    @Test
    void drafterMistakesAreOneLineEach() {
        String model = fixture("llama-tiny");
        Run noDrafter = run("generate", "--model", model, "--prompt", "x", "--ngram-max", "3");
        assertEquals(2, noDrafter.exit());
        assertTrue(noDrafter.err().contains("need a drafter: add --draft ngram or --draft-model DIR"), noDrafter.err());
        Run unknown = run("generate", "--model", model, "--prompt", "x", "--draft", "eagle");
        assertEquals(1, unknown.exit());
        assertTrue(unknown.err().contains("drafter 'eagle' is not installed") && unknown.err().contains("draft-model, ngram"), unknown.err());
        Run tooLong = run("generate", "--model", model, "--prompt", "x", "--draft", "ngram", "--ngram-max", "9");
        assertEquals(2, tooLong.exit());
        assertTrue(tooLong.err().contains("ngram_max"), tooLong.err());
        Run zero = run("generate", "--model", model, "--prompt", "x", "--draft-model", model, "--num-draft-tokens", "0");
        assertEquals(2, zero.exit());
        assertTrue(zero.err().contains("num_draft_tokens"), zero.err());
        for (Run r : new Run[] {noDrafter, unknown, tooLong, zero}) assertTrue(!r.err().contains("\tat "), "a stack trace: " + r.err());
    }
}
