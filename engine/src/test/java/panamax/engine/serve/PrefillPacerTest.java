package panamax.engine.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrefillPacerTest {
    private static final long MS = 1_000_000L;

    @Test
    void withNoStreamRunningOrNoTargetOrNoPassYetAPassTakesTheWholeChunk() {
        PrefillPacer paced = new PrefillPacer(512, 250);
        assertEquals(512, paced.budget(4, true), "no pass timed yet");
        paced.observe(512, 5_000 * MS); // 10 ms a token
        assertEquals(512, paced.budget(4, false), "no stream waits on the pass");
        assertEquals(25, paced.budget(4, true), "250 ms at 10 ms a token");
        PrefillPacer unpaced = new PrefillPacer(512, 0);
        unpaced.observe(512, 5_000 * MS);
        assertEquals(512, unpaced.budget(4, true), "0 ms: no target");
    }

    @Test
    void theBudgetStaysBetweenOneColumnPerRowAndTheChunk() {
        PrefillPacer pacer = new PrefillPacer(64, 250);
        pacer.observe(10, 10_000 * MS); // a second a token
        assertEquals(7, pacer.budget(7, true), "at least one column of each of 7 rows");
        PrefillPacer fast = new PrefillPacer(64, 250);
        fast.observe(512, 512 * 1000L); // a microsecond a token
        assertEquals(64, fast.budget(7, true), "never more than the chunk");
    }

    @Test
    void passesWithAFixedCostSettleAtTheTargetLength() {
        // a pass costs 30 ms (the weights streamed once) plus 11 ms a token, as a 4-bit 1B model's did on two cores
        PrefillPacer pacer = new PrefillPacer(512, 250);
        pacer.observe(64, (30 + 64 * 11) * MS); // the first cohort, alone: a whole prompt
        long last = 0;
        for (int pass = 0; pass < 12; pass++) {
            int tokens = pacer.budget(7, true);
            last = (30 + 11L * tokens) * MS;
            pacer.observe(tokens, last);
        }
        assertTrue(Math.abs(last - 250 * MS) <= 25 * MS, "a pass settled at " + last / MS + " ms against the 250 ms target");
    }
}
