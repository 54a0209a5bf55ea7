package panamax.engine.structured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import panamax.engine.generate.FinishReason;
import panamax.engine.generate.GenerationListener;
import panamax.engine.generate.GenerationRequest;
import panamax.engine.generate.GenerationResult;
import panamax.engine.generate.RowState;
import panamax.engine.generate.SamplingParams;

/** A row under a grammar, fed random logits (a fake model), writes only what the grammar accepts. */
class ConstrainedSamplingTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final PieceTokenizer tokenizer = new PieceTokenizer();

    static GenerationResult run(RowState row, int vocab, SplittableRandom random) {
        float[] logits = new float[vocab];
        while (!row.finished()) {
            for (int i = 0; i < vocab; i++) logits[i] = (float) (random.nextGaussian() * 3);
            row.step(logits, 0, vocab, GenerationListener.NONE);
        }
        return row.result();
    }

    @Test
    void aSchemaConstrainedRowWritesJsonThatParsesAndStopsWhenTheObjectCloses() throws Exception {
        JsonNode schema = JSON.readTree("""
                {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},
                 "tags":{"type":"array","items":{"enum":["a","b"]}}},"required":["name","age","tags"],"additionalProperties":false}""");
        Grammar grammar = Constraints.jsonSchema(schema);
        for (long seed = 0; seed < 20; seed++) {
            GenerationRequest request = new GenerationRequest(tokenizer.encode("x", false), SamplingParams.sample(1.0, seed), 400,
                    tokenizer.eosIds()).withConstraint(grammar);
            GenerationResult result = run(new RowState(0, request, tokenizer), tokenizer.vocabSize(), new SplittableRandom(seed));
            if (result.finish() == FinishReason.LENGTH) continue;
            String bytesText = tokenizer.decode(result.tokens(), true);
            assertEquals(bytesText, result.text(), java.util.Arrays.toString(result.tokens()));
            JsonNode out = JSON.readTree(result.text());
            assertNotNull(out, result.text());
            assertTrue(out.get("name").isTextual(), result.text());
            assertTrue(out.get("age").isIntegralNumber(), result.text());
            assertEquals(3, out.size(), result.text());
        }
    }
}
