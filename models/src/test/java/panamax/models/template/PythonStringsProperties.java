package panamax.models.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.strings;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Python {@code str} identities that the template string methods must keep. */
class PythonStringsProperties {
    private static Object call(String s, String method, Object... args) {
        return PythonStrings.invoke(s, method, args).orElseThrow();
    }

    @Test
    void joiningTheSplitPartsGivesTheStringBack() {
        qt().forAll(strings().betweenCodePoints(' ', 'c').ofLengthBetween(0, 30), strings().betweenCodePoints('a', 'c').ofLengthBetween(1, 3))
                .checkAssert((s, sep) -> assertEquals(s, call(sep, "join", call(s, "split", sep))));
    }

    @Test
    void splitWithoutSeparatorDropsWhitespaceRuns() {
        qt().forAll(strings().betweenCodePoints(' ', 'c').ofLengthBetween(0, 30)).checkAssert(s -> {
            @SuppressWarnings("unchecked")
            List<String> parts = (List<String>) call(s, "split");
            for (String p : parts) assertFalse(p.isEmpty() || p.contains(" "), parts.toString());
            assertEquals(String.join("", s.split(" ")), String.join("", parts));
        });
    }

    @Test
    void stripIsLstripOfRstrip() {
        qt().forAll(strings().betweenCodePoints('\t', 'c').ofLengthBetween(0, 30)).checkAssert(s -> {
            assertEquals(call((String) call(s, "rstrip"), "lstrip"), call(s, "strip"));
            assertEquals(call((String) call(s, "rstrip", "ab"), "lstrip", "ab"), call(s, "strip", "ab"));
        });
    }

    @Test
    void examplesMatchPython() {
        assertEquals(List.of("a", "b,c"), call("a,b,c", "split", ",", 1));
        assertEquals(List.of("a,b", "c"), call("a,b,c", "rsplit", ",", 1));
        assertEquals("Hello World", call("hello world", "title"));
        assertEquals("x-y-z", call("x y z", "replace", " ", "-"));
        assertEquals("x-y z", call("x y z", "replace", " ", "-", 1));
        assertEquals(true, call("<tool>x", "startswith", List.of("<a>", "<tool>")));
        assertEquals(List.of("a", "", "b"), call("a\n\nb\n", "splitlines"));
        assertEquals(2, call("abab", "count", "ab"));
        assertEquals("007", call("7", "zfill", 3));
    }
}
