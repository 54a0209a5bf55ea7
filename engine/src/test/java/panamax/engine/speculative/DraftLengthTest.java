package panamax.engine.speculative;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DraftLengthTest {
    @Test
    void aFixedCountNeverMoves() {
        DraftLength k = DraftLength.fixed(4);
        assertFalse(k.adaptive());
        assertEquals(4, k.next(4, 4, 4));
        assertEquals(4, k.next(4, 4, 0));
    }

    @Test
    void theHeuristicScheduleGrowsByTwoOnAFullAcceptanceAndShrinksByOneOnARejection() {
        DraftLength a = DraftLength.adaptiveFrom(4);
        assertTrue(a.adaptive());
        assertEquals(16, a.max());
        assertEquals(6, a.next(4, 4, 4));
        assertEquals(16, a.next(15, 15, 15)); // capped
        assertEquals(3, a.next(4, 4, 2));
        assertEquals(1, a.next(1, 1, 0)); // never below one
        assertEquals(4, a.next(4, 2, 2)); // a short draft fully accepted says nothing of a longer one
        assertEquals(4, a.next(4, 0, 0)); // nothing drafted: unchanged
    }

    @Test
    void theCeilingStaysWithinTheRequestLimit() {
        assertEquals(SpeculationRequest.MAX_DRAFT_TOKENS, DraftLength.adaptiveFrom(40).max());
        assertThrows(IllegalArgumentException.class, () -> new DraftLength(0, 4));
        assertThrows(IllegalArgumentException.class, () -> new DraftLength(5, 4));
    }
}
