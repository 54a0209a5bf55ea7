package panamax.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import panamax.engine.generate.SamplingParams;
import panamax.engine.structured.Constraints;
import panamax.engine.structured.Grammar;
import panamax.engine.structured.GrammarSyntaxException;
import panamax.engine.structured.UnsupportedSchemaException;
import picocli.CommandLine.Option;

/** The sampling flags of {@code generate} and {@code chat}, in mlx-lm's spelling where it has one. */
public final class SamplingOptions {
    @Option(names = "--max-tokens", paramLabel = "N", defaultValue = "256", description = "the most tokens to generate (default 256)")
    int maxTokens;

    @Option(names = "--temp", paramLabel = "T", defaultValue = "0", description = "sampling temperature; 0 is greedy (default 0)")
    double temperature;

    @Option(names = "--top-k", paramLabel = "K", defaultValue = "0", description = "keep the K most likely tokens; 0 keeps all (default 0)")
    int topK;

    @Option(names = "--top-p", paramLabel = "P", defaultValue = "1", description = "keep the smallest set of tokens whose probability reaches P (default 1)")
    double topP;

    @Option(names = "--min-p", paramLabel = "P", defaultValue = "0", description = "drop tokens less than P times as likely as the best (default 0)")
    double minP;

    @Option(names = "--repetition-penalty", paramLabel = "R", defaultValue = "1", description = "penalty on recently seen tokens; 1 is none (default 1)")
    double repetitionPenalty;

    @Option(names = "--repetition-context-size", paramLabel = "N", defaultValue = "20", description = "recent tokens the repetition penalty looks at (default 20)")
    int repetitionContext;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "random seed: the same seed gives the same text (default 0)")
    long seed;

    @Option(names = "--stop", paramLabel = "TEXT", description = "stop when the text contains TEXT (trimmed from the output); repeatable")
    List<String> stops = new ArrayList<>();

    @Option(names = "--json-schema", paramLabel = "FILE",
            description = "constrain the output to JSON that validates against the JSON Schema in FILE (OpenAI strict-mode subset)")
    Path jsonSchema;

    @Option(names = "--grammar", paramLabel = "FILE", description = "constrain the output to the GBNF grammar in FILE (llama.cpp format, start rule root)")
    Path grammarFile;

    /** The compiled output constraint, set by {@link #problem()}; null when neither flag is given. */
    private Grammar constraint;

    @Option(names = "--prefill-chunk", paramLabel = "N", defaultValue = "512", description = "prompt tokens per prefill pass (default 512)")
    int prefillChunk;

    /**
     * The sampling parameters these flags ask for.
     *
     * @throws panamax.api.error.InvalidParameterException naming the parameter that is out of range
     */
    SamplingParams params() {
        return new SamplingParams(temperature, topK, topP, minP, repetitionPenalty, repetitionContext, seed);
    }

    /** A one-line problem with the flags that {@link SamplingParams} does not check, or null. */
    String problem() {
        if (maxTokens < 1) return "--max-tokens must be at least 1, found " + maxTokens;
        if (prefillChunk < 1) return "--prefill-chunk must be at least 1, found " + prefillChunk;
        for (String stop : stops) if (stop.isEmpty()) return "--stop must not be empty";
        if (jsonSchema != null && grammarFile != null) return "--json-schema and --grammar cannot be combined; give one";
        return compileConstraint();
    }

    /** The output grammar of {@code --json-schema} or {@code --grammar} (after {@link #problem()}), or null. */
    Grammar constraint() {
        return constraint;
    }

    private String compileConstraint() {
        Path file = jsonSchema != null ? jsonSchema : grammarFile;
        if (file == null) return null;
        String flag = jsonSchema != null ? "--json-schema" : "--grammar";
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException | UncheckedIOException e) {
            return flag + " " + file + ": cannot read the file (" + e.getMessage() + ")";
        }
        try {
            if (grammarFile != null) {
                constraint = Constraints.gbnf(text);
            } else {
                JsonNode schema;
                try {
                    schema = new ObjectMapper().readTree(text);
                } catch (IOException e) {
                    return flag + " " + file + ": not valid JSON: " + e.getMessage().lines().findFirst().orElse("");
                }
                if (schema == null || !schema.isObject()) return flag + " " + file + ": expected a JSON Schema object";
                constraint = Constraints.jsonSchema(schema);
            }
        } catch (GrammarSyntaxException | UnsupportedSchemaException e) {
            return flag + " " + file + ": " + e.getMessage();
        }
        return null;
    }
}
