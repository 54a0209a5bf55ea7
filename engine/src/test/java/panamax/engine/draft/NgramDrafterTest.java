package panamax.engine.draft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import panamax.api.draft.Draft;
import panamax.api.draft.DraftContext;
import panamax.api.draft.DraftRow;
import panamax.api.error.InvalidParameterException;
import panamax.api.kv.PluginParams;

class NgramDrafterTest {
    private static NgramDrafter drafter(int min, int max) {
        NgramDrafterProvider p = new NgramDrafterProvider();
        return (NgramDrafter) p.create(PluginParams.of(Map.of("ngram_min", "" + min, "ngram_max", "" + max)).resolve(p.id(), p.capabilities().params()),
                new DraftContext(null, 100, Optional.empty()));
    }

    @Test
    void proposesWhatFollowedTheLatestEarlierOccurrenceOfTheLongestSuffix() {
        //                 0  1  2  3  4  5  6  7  8  9 10
        int[] history = {5, 6, 7, 8, 9, 1, 6, 7, 2, 5, 6, 7};
        // suffix [5, 6, 7] occurs at 0 (then 8, 9, 1, 6); [6, 7] occurs later at 6 but the longer match wins
        assertArrayEquals(new int[] {8, 9, 1, 6}, drafter(1, 3).lookup(history, history.length, 4).tokens());
        // with n-grams of at most 2, [6, 7]'s latest earlier occurrence (at 6) is followed by 2, 5, 6, 7
        assertArrayEquals(new int[] {2, 5, 6}, drafter(1, 2).lookup(history, history.length, 3).tokens());
    }

    @Test
    void proposesNothingWithoutAMatchOrBelowTheShortestNgram() {
        int[] history = {1, 2, 3, 4, 5};
        assertEquals(0, drafter(1, 3).lookup(history, history.length, 8).length());
        int[] once = {1, 2, 9, 2};
        assertArrayEquals(new int[] {9, 2}, drafter(1, 3).lookup(once, once.length, 8).tokens());
        assertEquals(0, drafter(2, 3).lookup(once, once.length, 8).length());
    }

    @Test
    void readsOnlyTheValidPrefixOfTheRowsArray() {
        int[] buffer = {3, 4, 3, 99, 99};
        List<Draft> drafts = drafter(1, 3).draft(List.of(new DraftRow(7, buffer, 3, 0, 0)), 5);
        assertArrayEquals(new int[] {4, 3}, drafts.getFirst().tokens());
    }

    @Test
    void aShortestNgramAboveTheLongestIsRefusedNamingBoth() {
        InvalidParameterException e = assertThrows(InvalidParameterException.class, () -> drafter(3, 2));
        assertTrue(e.getMessage().contains("ngram_min") && e.getMessage().contains("ngram_max (2)"), e.getMessage());
    }

    @Test
    void everyProposalContinuesAnEarlierOccurrenceOfTheHistorysSuffix() {
        qt().forAll(lists().of(integers().between(0, 3)).ofSizeBetween(1, 40), integers().between(1, 6)).checkAssert((list, k) -> {
            int[] h = list.stream().mapToInt(Integer::intValue).toArray();
            Draft d = drafter(1, 3).lookup(h, h.length, k);
            assertTrue(d.length() <= k);
            if (d.length() == 0) return;
            boolean found = false;
            for (int n = 1; n <= 3 && !found; n++) {
                for (int start = 0; start + n < h.length && !found; start++) {
                    boolean suffix = true;
                    for (int i = 0; i < n; i++) suffix &= h[start + i] == h[h.length - n + i];
                    if (!suffix) continue;
                    boolean continues = start + n + d.length() <= h.length;
                    for (int i = 0; continues && i < d.length(); i++) continues = h[start + n + i] == d.tokens()[i];
                    found = continues && start < h.length - n;
                }
            }
            assertTrue(found, "draft " + java.util.Arrays.toString(d.tokens()) + " continues no earlier suffix match in " + list);
        });
    }
}
