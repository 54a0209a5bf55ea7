package panamax.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import panamax.api.model.ToolCall;
import panamax.api.model.ToolCallFormat;
import panamax.api.model.ToolDefinition;
import panamax.models.tools.ToolCallFormats;

/** How one answer's tokens become text and tool-call pieces, for each way tools can be asked for. */
class ToolAnswerTest {
    private static final List<ToolDefinition> TOOLS = List.of(new ToolDefinition("get_weather", null, "{\"type\":\"object\"}"),
            new ToolDefinition("get_time", null, null));

    /** Feeds {@code tokens} (id, text) and finishes; returns every piece. */
    private static List<ToolAnswer.Piece> run(ToolAnswer answer, List<Object[]> tokens) {
        List<ToolAnswer.Piece> pieces = new ArrayList<>();
        for (Object[] t : tokens) pieces.addAll(answer.token((Integer) t[0], (String) t[1]));
        pieces.addAll(answer.finish());
        return pieces;
    }

    private static List<Object[]> texts(String... texts) {
        List<Object[]> out = new ArrayList<>();
        for (String t : texts) out.add(new Object[] {7, t});
        return out;
    }

    @Test
    void autoReadsCallsOutOfTheTextAndKeepsTheRest() {
        ToolAnswer answer = ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.AUTO, null), ToolCallFormats.hermes(), Map.of());
        List<ToolAnswer.Piece> pieces = run(answer, texts("Checking.", "\n<tool", "_call>\n{\"name\": \"get_weather\", ",
                "\"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>"));
        assertEquals(new ToolAnswer.Text("Checking."), pieces.get(0));
        ToolAnswer.CallPart call = (ToolAnswer.CallPart) pieces.getLast();
        assertEquals(0, call.index());
        assertEquals("get_weather", call.name());
        assertEquals("{\"city\":\"Oslo\"}", call.arguments());
        assertTrue(answer.called());
        assertEquals(List.of(new ToolCall(call.id(), "get_weather", "{\"city\":\"Oslo\"}")), answer.calls());
        assertEquals("Checking.\n", answer.content());
        assertNull(answer.forcedName());
    }

    @Test
    void autoWithoutACallIsPlainText() {
        ToolAnswer answer = ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.AUTO, null), ToolCallFormats.hermes(), Map.of());
        run(answer, texts("It is ", "<tool_call>not json</tool_call>", " sunny"));
        assertFalse(answer.called());
        assertEquals("It is <tool_call>not json</tool_call> sunny", answer.content());
    }

    @Test
    void aSpecialMarkerTokenReachesTheParserThoughItsTextIsEmpty() {
        ToolCallFormat mistral = ToolCallFormats.mistral();
        ToolAnswer answer = ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.AUTO, null), mistral, Map.of(5, "[TOOL_CALLS]"));
        List<Object[]> tokens = new ArrayList<>();
        tokens.add(new Object[] {5, ""}); // detokenized text skips special tokens
        tokens.addAll(texts("[{\"name\": \"get_time\", \"arguments\": {}}]"));
        run(answer, tokens);
        assertEquals(1, answer.calls().size());
        assertEquals("get_time", answer.calls().getFirst().name());
        assertTrue(answer.calls().getFirst().id().matches("[A-Za-z0-9]{9}"), "Mistral's id shape");
    }

    @Test
    void aNamedCallStreamsItsArgumentsTokenByToken() {
        ToolAnswer answer = ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.NAMED, "get_time"), ToolCallFormats.hermes(), Map.of());
        assertEquals("get_time", answer.forcedName());
        List<ToolAnswer.Piece> pieces = run(answer, texts("{\"zone\"", ": \"UTC\"}"));
        assertEquals(3, pieces.size());
        ToolAnswer.CallPart first = (ToolAnswer.CallPart) pieces.get(0);
        assertEquals("get_time", first.name());
        assertEquals("", first.arguments());
        assertEquals(new ToolAnswer.CallPart(0, null, null, "{\"zone\""), pieces.get(1));
        assertEquals("{\"zone\": \"UTC\"}", answer.calls().getFirst().arguments());
        assertEquals("", answer.content());
    }

    @Test
    void requiredWithOneToolForcesThatOneAndWithSeveralReadsTheCallObjectWhole() {
        ToolAnswer one = ToolAnswer.of(new ToolRequest(TOOLS.subList(0, 1), ToolRequest.Choice.REQUIRED, null), ToolCallFormats.hermes(), Map.of());
        assertEquals("get_weather", one.forcedName());
        ToolAnswer any = ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.REQUIRED, null), ToolCallFormats.llama3Json(), Map.of());
        assertNull(any.forcedName());
        List<ToolAnswer.Piece> held = new ArrayList<>();
        held.addAll(any.token(7, "{\"name\": \"get_time\", "));
        held.addAll(any.token(7, "\"parameters\": {\"zone\": \"CET\"}}"));
        assertEquals(List.of(), held, "held until the end");
        List<ToolAnswer.Piece> end = any.finish();
        assertEquals(1, end.size());
        assertEquals("{\"zone\":\"CET\"}", any.calls().getFirst().arguments());
        assertEquals("get_time", any.calls().getFirst().name());

        ToolAnswer cut = ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.REQUIRED, null), ToolCallFormats.hermes(), Map.of());
        cut.token(7, "{\"name\": \"get_ti");
        assertEquals(List.of(new ToolAnswer.Text("{\"name\": \"get_ti")), cut.finish(), "a call cut short by max_tokens is text");
        assertFalse(cut.called());
    }

    @Test
    void withoutToolsOrWithNoneTheTextPassesThrough() {
        for (ToolAnswer answer : List.of(ToolAnswer.text(), ToolAnswer.of(new ToolRequest(TOOLS, ToolRequest.Choice.NONE, null),
                ToolCallFormats.hermes(), Map.of()))) {
            assertEquals(List.of(new ToolAnswer.Text("<tool_call>{\"name\": \"get_time\"}</tool_call>")),
                    run(answer, texts("<tool_call>{\"name\": \"get_time\"}</tool_call>")));
            assertFalse(answer.called());
        }
    }
}
