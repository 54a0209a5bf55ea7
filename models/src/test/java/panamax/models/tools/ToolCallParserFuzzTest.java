package panamax.models.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallFormat;

/**
 * Every family's parser under arbitrary model output: it never throws, any split of the output
 * into streamed pieces gives the events of the whole output, every call has a name and a JSON
 * object as arguments, and output without a call comes back as exactly its text. The first byte
 * seeds the split; the rest is the output (as UTF-8, malformed bytes replaced). Regression inputs
 * live under {@code src/test/resources/panamax/models/tools/ToolCallParserFuzzTestInputs/}.
 */
class ToolCallParserFuzzTest {
    private static final String INPUTS = "ToolCallParserFuzzTestInputs/answersParseTheSameInEverySplitAndKeepTheirText";
    private static final List<ToolCallFormat> FORMATS = List.of(ToolCallFormats.hermes(), ToolCallFormats.llama3Json(), ToolCallFormats.mistral());

    @FuzzTest(maxDuration = "30s")
    void answersParseTheSameInEverySplitAndKeepTheirText(byte[] data) {
        if (data.length == 0) return;
        String output = new String(data, 1, data.length - 1, StandardCharsets.UTF_8);
        SplittableRandom random = new SplittableRandom(data[0]);
        List<String> pieces = new ArrayList<>();
        for (int at = 0; at < output.length(); ) {
            int next = Math.min(output.length(), at + 1 + random.nextInt(8));
            if (next < output.length() && Character.isLowSurrogate(output.charAt(next))) next++;
            pieces.add(output.substring(at, next));
            at = next;
        }
        for (ToolCallFormat format : FORMATS) {
            ParsedOutput whole = ParsedOutput.whole(format, output);
            assertEquals(whole, ParsedOutput.of(format, pieces), format.id() + " split into " + pieces);
            for (ToolCallEvent.Call call : whole.calls()) {
                assertTrue(!call.name().isBlank() && CallJson.tree(call.arguments()).map(n -> n.isObject()).orElse(false),
                        format.id() + " gave a call without a name or with arguments that are not an object: " + call);
            }
            if (whole.calls().isEmpty()) assertEquals(output, whole.text(), format.id() + ": output without a call is its text");
        }
    }

    @Test
    void theCallSeedsGiveCalls() throws IOException, URISyntaxException {
        URL dir = ToolCallParserFuzzTest.class.getResource(INPUTS);
        if (dir == null) throw new AssertionError("no seed directory " + INPUTS + " on the class path");
        List<Path> seeds;
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            seeds = files.filter(f -> f.getFileName().toString().startsWith("call-")).sorted().toList();
        }
        assertTrue(seeds.size() >= 4, "call seeds: " + seeds);
        for (Path seed : seeds) {
            byte[] data = Files.readAllBytes(seed);
            String output = new String(data, 1, data.length - 1, StandardCharsets.UTF_8);
            assertTrue(FORMATS.stream().anyMatch(f -> !ParsedOutput.whole(f, output).calls().isEmpty()), seed.getFileName() + " holds a call");
            answersParseTheSameInEverySplitAndKeepTheirText(data);
        }
    }
}
