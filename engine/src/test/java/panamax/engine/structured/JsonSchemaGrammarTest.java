package panamax.engine.structured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Which texts a schema's grammar accepts, and which schemas are refused with the keyword named. */
class JsonSchemaGrammarTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Grammar grammar(String schema) throws Exception {
        return Constraints.jsonSchema(JSON.readTree(schema));
    }

    private static boolean accepts(Grammar g, String text) {
        return GbnfGrammarTest.accepts(g, text);
    }

    @Test
    void strictObjectsNeedEveryPropertyInOrderAndNothingElse() throws Exception {
        Grammar g = grammar("""
                {"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}""");
        assertTrue(accepts(g, "{\"a\":1,\"b\":\"x\"}"));
        assertTrue(accepts(g, "{ \"a\" : -12 ,\n  \"b\": \"x\\\"y\" }"));
        assertFalse(accepts(g, "{\"a\":1}"), "b is required");
        assertFalse(accepts(g, "{\"b\":\"x\",\"a\":1}"), "schema order");
        assertFalse(accepts(g, "{\"a\":1,\"b\":\"x\",\"c\":2}"), "no additional properties");
        assertFalse(accepts(g, "{\"a\":1.5,\"b\":\"x\"}"), "integer");
        assertFalse(accepts(g, "{\"a\":01,\"b\":\"x\"}"), "no leading zeros");
    }

    @Test
    void optionalPropertiesMayBeLeftOutWithCommasStillRight() throws Exception {
        Grammar g = grammar("""
                {"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"boolean"},"c":{"type":"null"}},"required":["b"]}""");
        for (String ok : new String[]{"{\"b\":true}", "{\"a\":1,\"b\":false}", "{\"b\":true,\"c\":null}", "{\"a\":1,\"b\":true,\"c\":null}"}) {
            assertTrue(accepts(g, ok), ok);
        }
        for (String bad : new String[]{"{}", "{\"a\":1}", "{,\"b\":true}", "{\"a\":1,,\"b\":true}", "{\"b\":true,}"}) {
            assertFalse(accepts(g, bad), bad);
        }
    }

    @Test
    void enumsConstsAnyOfArraysAndRefs() throws Exception {
        Grammar g = grammar("""
                {"$defs":{"node":{"type":"object","properties":{"v":{"enum":["x",1,null]},"kids":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":2}},
                 "required":["v","kids"],"additionalProperties":false}},
                 "anyOf":[{"$ref":"#/$defs/node"},{"const":"leaf \\u00e9"}]}""");
        assertTrue(accepts(g, "{\"v\":\"x\",\"kids\":[{\"v\":1,\"kids\":[]},{\"v\":null,\"kids\":[{\"v\":\"x\",\"kids\":[]}]}]}"));
        assertTrue(accepts(g, "\"leaf \u00e9\""));
        assertFalse(accepts(g, "{\"v\":\"y\",\"kids\":[]}"), "not in the enum");
        assertFalse(accepts(g, "{\"v\":1,\"kids\":[{\"v\":1,\"kids\":[]},{\"v\":1,\"kids\":[]},{\"v\":1,\"kids\":[]}]}"), "maxItems 2");
    }

    @Test
    void lengthAndItemBoundsCountCharactersAndItems() throws Exception {
        Grammar g = grammar("{\"type\":\"array\",\"items\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":2},\"minItems\":1,\"maxItems\":2}");
        assertTrue(accepts(g, "[\"a\"]"));
        assertTrue(accepts(g, "[\"\u65e5\\n\", \"b\"]"), "an escape is one character");
        assertFalse(accepts(g, "[]"));
        assertFalse(accepts(g, "[\"\"]"));
        assertFalse(accepts(g, "[\"abc\"]"));
        assertFalse(accepts(g, "[\"a\",\"b\",\"c\"]"));
    }

    @Test
    void whitespaceIsBoundedSoAModelCannotPadForever() throws Exception {
        Grammar g = grammar("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"null\"}},\"required\":[\"a\"]}");
        assertTrue(accepts(g, "{\n" + " ".repeat(20) + "\"a\": null}"));
        assertFalse(GbnfGrammarTest.viablePrefix(g, "{\n" + " ".repeat(21)));
        assertFalse(GbnfGrammarTest.viablePrefix(g, "{\n\n\n"));
    }

    @Test
    void theSameSchemaCompilesOnce() throws Exception {
        String schema = "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"number\"}},\"required\":[\"q\"]}";
        assertSame(grammar(schema), grammar(schema));
    }

    @Test
    void aPrefixedSchemaGrammarEmbedsInALargerGrammar() throws Exception {
        JsonNode args = JSON.readTree("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}");
        String text = "root ::= \"<tool_call>\" args-root \"</tool_call>\"\n" + JsonSchemaGrammar.gbnf(args, "args-");
        Grammar g = Constraints.gbnf(text);
        assertTrue(accepts(g, "<tool_call>{\"city\": \"Nantucket\"}</tool_call>"));
        assertFalse(accepts(g, "<tool_call>{}</tool_call>"));
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("{\"type\":\"string\",\"pattern\":\"^a\"}", "pattern", "#"),
                Arguments.of("{\"type\":\"string\",\"format\":\"email\"}", "format", "#"),
                Arguments.of("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"minimum\":0}}}", "minimum", "#/properties/n"),
                Arguments.of("{\"oneOf\":[{\"type\":\"string\"}]}", "oneOf", "#"),
                Arguments.of("{\"allOf\":[{\"type\":\"string\"}]}", "allOf", "#"),
                Arguments.of("{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"multipleOf\":2}}", "multipleOf", "#/items"),
                Arguments.of("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}", "additionalProperties", "#"),
                Arguments.of("{\"type\":\"object\",\"patternProperties\":{}}", "patternProperties", "#"),
                Arguments.of("{\"type\":\"date\"}", "type", "#"),
                Arguments.of("{\"$ref\":\"https://example.com/s.json\"}", "$ref", "#"),
                Arguments.of("{\"$ref\":\"#/$defs/missing\"}", "$ref", "#"),
                Arguments.of("{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":[\"b\"]}", "required", "#"),
                Arguments.of("{\"type\":\"array\",\"prefixItems\":[]}", "prefixItems", "#"),
                Arguments.of("{\"type\":\"string\",\"minLength\":5,\"maxLength\":2}", "maxLength", "#"));
    }

    @ParameterizedTest(name = "{1} at {2}")
    @MethodSource("refused")
    void schemasOutsideTheSubsetAreRefusedNamingTheKeywordAndWhere(String schema, String keyword, String path) {
        UnsupportedSchemaException e = assertThrows(UnsupportedSchemaException.class, () -> grammar(schema));
        assertEquals(keyword, e.keyword(), e.getMessage());
        assertEquals(path, e.path(), e.getMessage());
        assertTrue(e.getMessage().contains("'" + keyword + "'"), e.getMessage());
    }
}
