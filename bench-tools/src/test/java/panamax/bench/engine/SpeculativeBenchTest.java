package panamax.bench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code panamax bench speculative} with a random preset target and its truncated draft. */
class SpeculativeBenchTest {
    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int exit = SpeculativeBench.run(List.of(args), new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void laterLayersScaledToZeroMakeTheTruncatedDraftTheTargetSoEveryDraftIsAccepted() throws Exception {
        Run r = run("--preset", "tiny", "--draft", "model", "--draft-layers", "1", "--later-layers-scale", "0",
                "--max-tokens", "12", "--repeats", "1", "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(1.0, json.get("acceptance").asDouble(), r.out());
        assertTrue(json.get("tokens_per_step").asDouble() > 1.0, r.out());
        assertTrue(json.get("identical_output").asBoolean(), r.out());
        assertEquals(0.0, json.get("later_layers_scale").asDouble());
    }

    @Test
    void unscaledRandomLayersDisagreeWithTheirTruncatedDraft() throws Exception {
        Run r = run("--preset", "tiny", "--draft", "model", "--draft-layers", "1", "--max-tokens", "12", "--repeats", "1", "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertTrue(json.get("acceptance").asDouble() < 0.5, r.out());
        assertTrue(json.get("identical_output").asBoolean(), r.out());
    }

    @Test
    void aScaleOutsideZeroToOneOrOnARealModelIsAUsageError() {
        Run high = run("--preset", "tiny", "--later-layers-scale", "2");
        assertEquals(2, high.exit());
        assertTrue(high.err().contains("--later-layers-scale: expected a number from 0 to 1, found '2'"), high.err());
        Run model = run("--model", "/nonexistent", "--later-layers-scale", "0.5");
        assertEquals(2, model.exit());
        assertTrue(model.err().contains("cannot change --model's weights"), model.err());
    }
}
