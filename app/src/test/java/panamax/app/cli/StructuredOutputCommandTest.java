package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.FinishReason;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationOutput;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.GenerationResult;
import panamax.engine.generate.ModelSession;
import panamax.engine.generate.SamplingParams;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.structured.Constraints;

/**
 * Structured outputs with real models and tokenizers: {@code generate --json-schema / --grammar} on
 * the demo model, every fixture model (random weights, real byte-level BPE vocabularies) decoding
 * under a schema in a batch of constrained and free rows, and the CLI's errors for bad files.
 */
class StructuredOutputCommandTest {
    /** Decimals parsed exactly: a generated number may lie past a double's range, which a double reads as infinite. */
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    /** Every string, number and array bounded, so that any model finishes within a small context. */
    private static final String SCHEMA = """
            {"type":"object","properties":{"ok":{"type":"boolean"},"n":{"type":"integer"},"tag":{"enum":["whale","sea"]},
             "name":{"type":"string","maxLength":6},"also":{"anyOf":[{"type":"null"},{"type":"array","items":{"$ref":"#/$defs/d"},"maxItems":2}]}},
             "required":["ok","n","tag","name","also"],"additionalProperties":false,
             "$defs":{"d":{"type":"object","properties":{"k":{"const":"v"}},"required":["k"],"additionalProperties":false}}}""";
    private static final JsonSchema VALIDATOR = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(SCHEMA);

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Path fixtures() {
        Path dir = Path.of(System.getProperty("panamax.fixtures", "../shared/fixtures"));
        assertTrue(Files.isDirectory(dir), "fixtures missing: " + dir.toAbsolutePath() + " (set -Dpanamax.fixtures)");
        return dir;
    }

    private static void assertValid(String text) throws IOException {
        JsonNode node = JSON.readTree(text);
        var errors = VALIDATOR.validate(node);
        assertTrue(errors.isEmpty(), errors + " in " + text);
    }

    @Test
    void generateWithAJsonSchemaWritesValidJsonOnTheDemoModel(@TempDir Path dir) throws IOException {
        Path schema = Files.writeString(dir.resolve("schema.json"), SCHEMA);
        for (String temp : List.of("0", "0.8")) {
            Run r = run("generate", "--prompt", "Call me Ishmael.", "--json-schema", schema.toString(), "--max-tokens", "400",
                    "--temp", temp, "--progress", "never");
            assertEquals(0, r.exit(), r.err());
            String out = r.out();
            String text = out.substring(0, out.lastIndexOf("\n["));
            assertTrue(out.contains("[eos]"), "ends because the object closed: " + out);
            assertValid(text);
        }
    }

    @Test
    void aGrammarRowUnderADrafterDecodesOneTokenPerStepAndWritesWhatItWritesWithout(@TempDir Path dir) throws IOException {
        // a constrained row is refused speculation (its grammar advances token by token), yet runs in the speculative loop
        Path schema = Files.writeString(dir.resolve("schema.json"), SCHEMA);
        Run plain = run("generate", "--prompt", "Call me Ishmael.", "--json-schema", schema.toString(), "--max-tokens", "200",
                "--temp", "0", "--progress", "never");
        Run drafted = run("generate", "--prompt", "Call me Ishmael.", "--json-schema", schema.toString(), "--max-tokens", "200",
                "--temp", "0", "--progress", "never", "--draft", "ngram");
        assertEquals(0, plain.exit(), plain.err());
        assertEquals(0, drafted.exit(), drafted.err());
        String text = plain.out().substring(0, plain.out().lastIndexOf("\n["));
        assertEquals(text, drafted.out().substring(0, drafted.out().lastIndexOf("\n[")));
        assertValid(text);
    }

    @Test
    void generateWithAGbnfGrammarFollowsIt(@TempDir Path dir) throws IOException {
        Path grammar = Files.writeString(dir.resolve("answer.gbnf"), """
                root ::= "Answer: " verdict " (" [0-9]{1,2} "%)"
                verdict ::= "yes" | "no" | "maybe"
                """);
        Run r = run("generate", "--prompt", "Is the whale white?", "--grammar", grammar.toString(), "--max-tokens", "40", "--progress", "never");
        assertEquals(0, r.exit(), r.err());
        String text = r.out().substring(0, r.out().lastIndexOf("\n["));
        assertTrue(text.matches("Answer: (yes|no|maybe) \\([0-9]{1,2}%\\)"), text);
    }

    @Test
    void badConstraintFilesAreUsageErrorsThatSayWhereWithoutAStackTrace(@TempDir Path dir) throws IOException {
        Path gbnf = Files.writeString(dir.resolve("bad.gbnf"), "root ::= \"a\"\n  | [b-\n");
        Run r = run("generate", "--prompt", "x", "--grammar", gbnf.toString());
        assertEquals(Cli.USAGE, r.exit());
        assertTrue(r.err().contains("bad.gbnf: grammar error at line 2, column 5"), r.err());
        Path schema = Files.writeString(dir.resolve("s.json"), "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"x\"}}}");
        r = run("generate", "--prompt", "x", "--json-schema", schema.toString());
        assertEquals(Cli.USAGE, r.exit());
        assertTrue(r.err().contains("'pattern' at #/properties/a"), r.err());
        r = run("generate", "--prompt", "x", "--json-schema", Files.writeString(dir.resolve("t.json"), "{not json").toString());
        assertEquals(Cli.USAGE, r.exit());
        assertTrue(r.err().contains("not valid JSON"), r.err());
        r = run("generate", "--prompt", "x", "--json-schema", schema.toString(), "--grammar", gbnf.toString());
        assertEquals(Cli.USAGE, r.exit());
        assertTrue(r.err().contains("cannot be combined"), r.err());
        r = run("generate", "--prompt", "x", "--grammar", dir.resolve("missing.gbnf").toString());
        assertEquals(Cli.USAGE, r.exit());
        assertTrue(r.err().contains("cannot read"), r.err());
        for (String err : List.of(r.err())) assertFalse(err.contains("\tat "), err);
    }

    @Test
    void everyFixtureModelDecodesValidJsonInABatchWithFreeRows() throws IOException {
        List<Path> models = new ArrayList<>();
        // the fixture families this build runs (gpt2-tiny has no model plugin yet)
        for (String name : List.of("llama-tiny", "qwen3-tiny", "gemma3-tiny")) {
            Path dir = fixtures().resolve(name);
            assertTrue(Files.isRegularFile(dir.resolve("model.safetensors")), "fixture missing: " + dir);
            models.add(dir);
        }
        models.add(DemoModel.directory());
        var grammar = Constraints.jsonSchema(JSON.readTree(SCHEMA));
        int validated = 0;
        for (Path model : models) {
            try (ModelSession session = ModelSession.open(PluginRegistry.discover(Optional.empty()), model, KvScheme.identity(), Optional.empty())) {
                var tokenizer = session.tokenizer();
                int[] prompt = tokenizer.encode("The whale", false);
                List<GenerationRequest> batch = new ArrayList<>();
                for (int seed = 0; seed < 4; seed++) {
                    SamplingParams sampling = seed == 0 ? SamplingParams.greedy() : SamplingParams.sample(1.0, seed);
                    batch.add(new GenerationRequest(prompt, sampling, 200, tokenizer.eosIds()).withConstraint(grammar));
                }
                batch.add(new GenerationRequest(prompt, SamplingParams.sample(1.0, 9), 40, java.util.Set.of())); // free
                GenerationOutput out = session.generator().generate(batch, GenerationListener.NONE);
                int finished = 0;
                for (int i = 0; i < 4; i++) {
                    GenerationResult result = out.results().get(i);
                    if (result.finish() == FinishReason.LENGTH) continue;
                    assertValid(result.text());
                    finished++;
                }
                assertEquals(40, out.results().get(4).tokens().length, "the free row runs its full length beside constrained ones");
                assertTrue(finished >= 2, model + ": " + finished + " of 4 constrained rows finished within 200 tokens");
                validated += finished;
            }
        }
        assertTrue(validated >= 10, validated + " outputs validated");
    }
}
