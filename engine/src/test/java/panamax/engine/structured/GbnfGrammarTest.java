package panamax.engine.structured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** GBNF text in, automaton out: what each construct accepts, and errors that point at the problem. */
class GbnfGrammarTest {
    /** llama.cpp's grammars/json.gbnf, as published. */
    private static final String LLAMA_CPP_JSON = """
            root   ::= object
            value  ::= object | array | string | number | ("true" | "false" | "null") ws

            object ::=
              "{" ws (
                        string ":" ws value
                ("," ws string ":" ws value)*
              )? "}" ws

            array  ::=
              "[" ws (
                        value
                ("," ws value)*
              )? "]" ws

            string ::=
              "\\"" (
                [^"\\\\\\x7F\\x00-\\x1F] |
                "\\\\" (["\\\\bfnrt] | "u" [0-9a-fA-F]{4}) # escapes
              )* "\\"" ws

            number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws

            # Optional space: by convention, applied in this grammar after literal chars when allowed
            ws ::= | " " | "\\n" [ \\t]{0,20}
            """;

    static boolean accepts(Grammar g, String text) {
        GrammarState s = g.start().advance(text);
        return s != null && s.accepting();
    }

    /** Whether {@code text} can begin a sentence (every prefix stays alive). */
    static boolean viablePrefix(Grammar g, String text) {
        return g.start().advance(text) != null;
    }

    @Test
    void llamaCppJsonGrammarAcceptsJsonAndRejectsTheRest() {
        Grammar g = Grammar.parse(LLAMA_CPP_JSON);
        assertTrue(accepts(g, "{\"a\": [1, 2.5e3, \"x\\n\", true, null, {}], \"b\":{\"c\":-0.25}}"));
        assertTrue(accepts(g, "{}"));
        assertTrue(accepts(g, "{\"k\": \"h\u00e9llo \u65e5\u672c \\u00e9\"}"));
        assertFalse(accepts(g, "[1]"), "root is an object");
        assertFalse(viablePrefix(g, "{'a': 1}"));
        assertFalse(viablePrefix(g, "{\"a\" 1}"));
        assertFalse(accepts(g, "{\"a\": 1"), "incomplete");
        assertTrue(viablePrefix(g, "{\"a\": 1"));
    }

    @Test
    void charClassesRangesNegationEscapesAndAnyChar() {
        Grammar g = Grammar.parse("root ::= [a-c0-9_] [^a-z\\n] . \"\\x41\\u00e9\\U0001F600\\t\\\"\\\\\"");
        assertTrue(accepts(g, "b5" + "\u65e5" + "A\u00e9\uD83D\uDE00\t\"\\"));
        assertTrue(accepts(g, "_" + "!" + "x" + "A\u00e9\uD83D\uDE00\t\"\\"));
        assertFalse(viablePrefix(g, "d"));
        assertFalse(viablePrefix(g, "aa"), "[^a-z] rejects a");
        assertFalse(viablePrefix(g, "a\n"), "[^...\\n] rejects a newline");
    }

    @Test
    void repetitionOperatorsAndGroups() {
        Grammar g = Grammar.parse("root ::= (\"ab\" | \"c\")+ \"x\"? \"y\"* \"z\"{2} \"w\"{1,} \"v\"{,2} \"u\"{1,3}");
        assertTrue(accepts(g, "abzzwu"));
        assertTrue(accepts(g, "cabcxyyyzzwwwvvuuu"));
        assertFalse(accepts(g, "zzwu"), "+ needs one");
        assertFalse(accepts(g, "abxxzzwu"), "? allows one");
        assertFalse(accepts(g, "abzwu"), "{2} needs two");
        assertFalse(accepts(g, "abzzu"), "{1,} needs one");
        assertFalse(accepts(g, "abzzwvvvu"), "{,2} allows two");
        assertFalse(accepts(g, "abzzwuuuu"), "{1,3} allows three");
    }

    @Test
    void boundedRepetitionAcceptsExactlyItsCounts() {
        qt().forAll(integers().between(0, 6), integers().between(0, 6), integers().between(0, 9)).checkAssert((m, extra, k) -> {
            int n = m + extra;
            Grammar g = Grammar.parse("root ::= \"<\" (\"a\" | \"bb\"){" + m + "," + n + "} \">\"");
            String body = "a".repeat(k / 2) + "bb".repeat(k - k / 2);
            assertEquals(k >= m && k <= n, accepts(g, "<" + body + ">"), "{" + m + "," + n + "} with " + k);
        });
    }

    @Test
    void rulesSpanLinesAndCommentsAreIgnored() {
        Grammar g = Grammar.parse("""
                # a comment
                root ::= greeting
                  " " name   # trailing comment
                greeting ::= "hi"
                  | "hello"
                name ::= [A-Z] [a-z]*
                """);
        assertTrue(accepts(g, "hello Ishmael"));
        assertTrue(accepts(g, "hi Ahab"));
        assertFalse(accepts(g, "hey Ahab"));
    }

    @Test
    void utf8BytesAreAcceptedOneByOneAndOverlongOrBrokenSequencesAreNot() {
        Grammar g = Grammar.parse("root ::= [^\"]* \"\\\"\"");
        GrammarState s = g.start();
        for (byte b : "\u20ac\uD83D\uDE00\"".getBytes(StandardCharsets.UTF_8)) {
            s = s.advanceByte(b);
            assertNotNull(s);
        }
        assertTrue(s.accepting());
        assertNull(g.start().advanceByte(0xE0).advanceByte(0x80), "E0 80 can only start an overlong form");
        assertNull(g.start().advanceByte(0xC0), "C0 is always overlong");
        assertNull(g.start().advanceByte(0x80), "a continuation byte cannot start a character");
        assertNull(g.start().advanceByte(0xED).advanceByte(0xA0), "surrogates are not characters");
        GrammarState mid = g.start().advanceByte(0xE2);
        assertFalse(mid.accepting(), "a character in progress is not a complete text");
        assertNull(Grammar.parse("root ::= [a-z]").start().advanceByte(0xE2), "no multi-byte character is allowed");
    }

    @Test
    void completeMeansNothingMayFollow() {
        Grammar g = Grammar.parse("root ::= \"a\" \"b\"?");
        GrammarState a = g.start().advance('a');
        assertTrue(a.accepting());
        assertFalse(a.complete());
        assertTrue(a.advance('b').complete());
    }

    static Stream<Arguments> badGrammars() {
        return Stream.of(
                Arguments.of("", 1, 1, "empty"),
                Arguments.of("root ::= \"a\"\nroot ::= \"b\"", 2, 1, "defined twice"),
                Arguments.of("start ::= \"a\"", 1, 1, "no rule named 'root'"),
                Arguments.of("root ::= \"a\" thing", 1, 14, "undefined rule 'thing'"),
                Arguments.of("root ::= \"abc", 1, 10, "never closed"),
                Arguments.of("root ::=\n  [a-z", 2, 3, "never closed"),
                Arguments.of("root ::= \"\\q\"", 1, 11, "unknown escape"),
                Arguments.of("root ::= \"\\x4\"", 1, 11, "hex digits"),
                Arguments.of("root \"a\"", 1, 6, "expected ::="),
                Arguments.of("root ::= [z-a]", 1, 12, "runs backwards"),
                Arguments.of("root ::= \"a\"{3,1}", 1, 13, "below the minimum"),
                Arguments.of("root ::= \"a\"{2", 1, 15, "expected '}'"),
                Arguments.of("root ::= * \"a\"", 1, 10, "nothing before it to repeat"),
                Arguments.of("root ::= \"a\" )", 1, 14, "without a matching '('"),
                Arguments.of("root ::= ( \"a\" ", 1, 10, "never closed"),
                Arguments.of("root ::= []", 1, 10, "matches nothing"),
                Arguments.of("root ::= \"x\" expr\nexpr ::= expr \"+\" \"1\" | \"1\"", 2, 1, "left-recursive"),
                Arguments.of("root ::= a\na ::= b? \"x\" | b a\nb ::= \"y\"?", 2, 1, "left-recursive"),
                Arguments.of("root ::= \"a\" %", 1, 14, "unexpected '%'"));
    }

    @ParameterizedTest(name = "{3}")
    @MethodSource("badGrammars")
    void badGrammarsAreRefusedWithTheLineAndColumn(String text, int line, int column, String says) {
        GrammarSyntaxException e = assertThrows(GrammarSyntaxException.class, () -> Grammar.parse(text));
        assertTrue(e.getMessage().contains(says), e.getMessage());
        assertEquals(line, e.line(), e.getMessage());
        assertEquals(column, e.column(), e.getMessage());
        assertTrue(e.getMessage().startsWith("grammar error at line " + line + ", column " + column + ": "), e.getMessage());
    }
}
