package panamax.models.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import panamax.api.model.ToolCallEvent;
import panamax.api.model.ToolCallEvent.Call;
import panamax.api.model.ToolCallEvent.Text;
import panamax.api.model.ToolCallFormat;

/**
 * Each family's parser on real-shaped answers: calls come out with compact JSON arguments, text
 * around them passes through, malformed calls come back as text, and any split of the answer into
 * streamed pieces gives the same events as the whole answer.
 */
class ToolCallParsersTest {
    private static final ToolCallFormat HERMES = ToolCallFormats.hermes();
    private static final ToolCallFormat LLAMA = ToolCallFormats.llama3Json();
    private static final ToolCallFormat MISTRAL = ToolCallFormats.mistral();

    /** Format, model output, the events it must give. */
    static Stream<Arguments> answers() {
        return Stream.of(
                // Qwen 2.5 / 3: calls in tags, text and thinking around them, several calls
                Arguments.of(HERMES, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
                        List.of(new Call("get_weather", "{\"city\":\"Paris\"}"))),
                Arguments.of(HERMES, "<think>\nweather needed\n</think>\n\nLet me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n"
                                + "<tool_call>\n{\"name\": \"b\", \"arguments\": {\"n\": [1, 2, {\"x\": \"}\"}]}}\n</tool_call>",
                        List.of(new Text("<think>\nweather needed\n</think>\n\nLet me check.\n"), new Call("a", "{}"), new Text("\n"),
                                new Call("b", "{\"n\":[1,2,{\"x\":\"}\"}]}"))),
                Arguments.of(HERMES, "Plain answer with a < sign and <tool but no call.", List.of(new Text("Plain answer with a < sign and <tool but no call."))),
                // arguments given as a JSON string, and a body left unclosed at the end of the answer
                Arguments.of(HERMES, "<tool_call>\n{\"name\": \"f\", \"arguments\": \"{\\\"k\\\": 1}\"}", List.of(new Call("f", "{\"k\":1}"))),
                // malformed: not JSON, no name, arguments not an object, unclosed and cut
                Arguments.of(HERMES, "<tool_call>\nnot json\n</tool_call> after", List.of(new Text("<tool_call>\nnot json\n</tool_call> after"))),
                Arguments.of(HERMES, "<tool_call>{\"arguments\": {}}</tool_call>", List.of(new Text("<tool_call>{\"arguments\": {}}</tool_call>"))),
                Arguments.of(HERMES, "<tool_call>{\"name\": \"f\", \"arguments\": 3}</tool_call>", List.of(new Text("<tool_call>{\"name\": \"f\", \"arguments\": 3}</tool_call>"))),
                Arguments.of(HERMES, "ok <tool_call>\n{\"name\": \"f\", \"argu", List.of(new Text("ok <tool_call>\n{\"name\": \"f\", \"argu"))),
                Arguments.of(HERMES, "ends in a partial tag <tool_ca", List.of(new Text("ends in a partial tag <tool_ca"))),

                // Llama 3.1: a JSON object first, optionally after <|python_tag|>, several separated by ';'
                Arguments.of(LLAMA, "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}",
                        List.of(new Call("get_weather", "{\"city\":\"Oslo\"}"))),
                Arguments.of(LLAMA, "  <|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": 1}}; {\"name\": \"b\", \"arguments\": {}}",
                        List.of(new Call("a", "{\"x\":1}"), new Call("b", "{}"))),
                Arguments.of(LLAMA, "{\"name\": \"a\", \"parameters\": {}} and then some words",
                        List.of(new Call("a", "{}"), new Text(" and then some words"))),
                Arguments.of(LLAMA, "The answer is {\"name\": \"a\"}", List.of(new Text("The answer is {\"name\": \"a\"}"))),
                Arguments.of(LLAMA, "{\"not\": \"a call\"}", List.of(new Text("{\"not\": \"a call\"}"))),
                Arguments.of(LLAMA, "{\"name\": \"a\", \"parameters\": {\"cut", List.of(new Text("{\"name\": \"a\", \"parameters\": {\"cut"))),
                Arguments.of(LLAMA, "<|python_tag|>brave_search.call(query=\"x\")", List.of(new Text("<|python_tag|>brave_search.call(query=\"x\")"))),
                Arguments.of(LLAMA, "<|pyt", List.of(new Text("<|pyt"))),

                // Mistral: [TOOL_CALLS] then a JSON array (v3), or name[ARGS]{...} (v11+), text around
                Arguments.of(MISTRAL, "[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}, {\"name\": \"b\", \"arguments\": {}}]",
                        List.of(new Call("get_weather", "{\"city\":\"Rome\"}"), new Call("b", "{}"))),
                Arguments.of(MISTRAL, "Sure.[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Rome\"}[TOOL_CALLS]b[CALL_ID]a1b2c3d4e[ARGS]{}",
                        List.of(new Text("Sure."), new Call("get_weather", "{\"city\":\"Rome\"}"), new Call("b", "{}"))),
                Arguments.of(MISTRAL, "[TOOL_CALLS] [{\"name\": 5}]", List.of(new Text("[TOOL_CALLS] [{\"name\": 5}]"))),
                Arguments.of(MISTRAL, "[TOOL_CALLS]two words[ARGS]{}", List.of(new Text("[TOOL_CALLS]two words[ARGS]{}"))),
                Arguments.of(MISTRAL, "[TOOL_CALLS]f[ARGS]not json", List.of(new Text("[TOOL_CALLS]f[ARGS]not json"))),
                Arguments.of(MISTRAL, "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {", List.of(new Text("[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {"))),
                Arguments.of(MISTRAL, "No tools here [TOOL", List.of(new Text("No tools here [TOOL"))));
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("answers")
    void anAnswerGivesItsCallsAndText(ToolCallFormat format, String output, List<ToolCallEvent> expected) {
        assertEquals(expected, ParsedOutput.whole(format, output).events(), output);
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("answers")
    void everySplitOfTheAnswerGivesTheSameEvents(ToolCallFormat format, String output, List<ToolCallEvent> expected) {
        int checked = 0;
        assertEquals(expected, ParsedOutput.byCharacter(format, output).events(), "one character at a time: " + output);
        for (int cut = 0; cut <= output.length(); cut++) {
            if (cut > 0 && cut < output.length() && Character.isSurrogate(output.charAt(cut))) continue;
            assertEquals(expected, ParsedOutput.of(format, List.of(output.substring(0, cut), output.substring(cut))).events(),
                    "split at " + cut + ": " + output);
            checked++;
        }
        SplittableRandom random = new SplittableRandom(output.hashCode());
        for (int trial = 0; trial < 50; trial++) {
            List<String> pieces = new java.util.ArrayList<>();
            int at = 0;
            while (at < output.length()) {
                int next = Math.min(output.length(), at + 1 + random.nextInt(6));
                pieces.add(output.substring(at, next));
                at = next;
            }
            assertEquals(expected, ParsedOutput.of(format, pieces).events(), "pieces " + pieces);
            checked++;
        }
        assertTrue(checked > output.length(), "checked " + checked + " splits");
    }

    @Test
    void textThatCannotBeginACallIsPassedOnAtOnce() {
        var parser = HERMES.newParser();
        assertEquals(List.of(new Text("Hello, ")), parser.feed("Hello, "));
        assertEquals(List.of(new Text("world ")), parser.feed("world <tool"), "the possible tag start is held");
        assertEquals(List.of(new Text("<toolbox")), parser.feed("box"), "and let go when it is not the tag");
        assertEquals(List.of(), parser.feed("<tool_call>{\"name\": \"f\", "), "a call is held until it closes");
        assertEquals(List.of(new Call("f", "{}")), parser.feed("\"arguments\": {}}</tool_call>"));
        assertEquals(List.of(), parser.finish());

        var mistral = MISTRAL.newParser();
        assertEquals(List.of(new Text("Fine")), mistral.feed("Fine[TOOL_"));
        assertEquals(List.of(), mistral.feed("CALLS][{\"name\": \"f\", \"arguments\": {}}"));
        assertEquals(List.of(new Call("f", "{}")), mistral.feed("]"));

        var llama = LLAMA.newParser();
        assertEquals(List.of(), llama.feed("  "), "leading space may precede a call");
        assertEquals(List.of(new Text("  It is sunny.")), llama.feed("It is sunny."));
        assertEquals(List.of(new Text(" More.")), llama.feed(" More."));
    }

    @Test
    void eachFamilyWritesAForcedCallTheWayItsParserReadsIt() {
        for (ToolCallFormat format : List.of(HERMES, LLAMA, MISTRAL)) {
            var syntax = format.syntax();
            String call = syntax.opening() + "{\"" + syntax.nameField() + "\": \"get_weather\", \"" + syntax.argumentsField()
                    + "\": {\"city\": \"Paris\"}}" + (format == MISTRAL ? "]" : format == HERMES ? "\n</tool_call>" : "");
            assertEquals(List.of(new Call("get_weather", "{\"city\":\"Paris\"}")), ParsedOutput.whole(format, call).events(), format.id());
        }
    }

    @Test
    void callIdsHaveTheShapeTheFamiliesTemplatesAccept() {
        SplittableRandom random = new SplittableRandom(1);
        assertTrue(MISTRAL.newCallId(random).matches("[A-Za-z0-9]{9}"), "Mistral's templates demand nine letters and digits");
        assertTrue(HERMES.newCallId(random).matches("call_[A-Za-z0-9]{24}"));
        assertTrue(!HERMES.newCallId(random).equals(HERMES.newCallId(random)));
    }
}
