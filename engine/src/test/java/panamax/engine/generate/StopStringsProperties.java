package panamax.engine.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Stop strings are found however the text is split into deltas, and never reach the output. */
class StopStringsProperties {
    /** Splits {@code text} at the given cut points (taken modulo its length). */
    private static List<String> split(String text, List<Integer> cuts) {
        List<Integer> points = new ArrayList<>();
        for (int c : cuts) points.add(text.isEmpty() ? 0 : c % (text.length() + 1));
        points.add(0);
        points.add(text.length());
        List<Integer> sorted = points.stream().distinct().sorted().toList();
        List<String> parts = new ArrayList<>();
        for (int i = 0; i + 1 < sorted.size(); i++) parts.add(text.substring(sorted.get(i), sorted.get(i + 1)));
        return parts;
    }

    private static String run(StopStrings stops, List<String> deltas) {
        StringBuilder out = new StringBuilder();
        for (String d : deltas) out.append(stops.accept(d));
        return out.append(stops.finish()).toString();
    }

    @Test
    void outputIsTheTextBeforeTheFirstStopStringWhateverTheSplit() {
        qt().forAll(strings().betweenCodePoints('a', 'd').ofLengthBetween(0, 30), strings().betweenCodePoints('a', 'd').ofLengthBetween(1, 4),
                lists().of(integers().between(0, 40)).ofSizeBetween(0, 10)).checkAssert((text, stop, cuts) -> {
            StopStrings stops = new StopStrings(List.of(stop, "\n\n"));
            String out = run(stops, split(text, cuts));
            int at = text.indexOf(stop);
            assertEquals(at >= 0 ? text.substring(0, at) : text, out);
            assertEquals(at >= 0, stops.stopped());
        });
    }

    @Test
    void heldBackTextIsOnlyAPossibleStopPrefix() {
        StopStrings stops = new StopStrings(List.of("</s>"));
        assertEquals("hello ", stops.accept("hello <"));
        assertEquals("", stops.accept("/"));
        assertEquals("</x", stops.accept("x"));
        assertFalse(stops.stopped());
        assertEquals("ok", stops.accept("ok</"));
        assertEquals("", stops.accept("s> after"));
        assertTrue(stops.stopped());
        assertEquals("", stops.accept("more"));
        assertEquals("", stops.finish());
    }

    @Test
    void theEarliestOfSeveralStopStringsWins() {
        StopStrings stops = new StopStrings(List.of("END", "ND!"));
        assertEquals("a", stops.accept("aEND!"));
    }
}
