package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The stderr progress bar: redrawn in place, throttled to one frame per 100 ms of a supplied clock, one final line, nothing after it. */
class ProgressBarTest {
    private static final long MS = 1_000_000L;

    /** A clock the test moves by hand, in nanoseconds. */
    private static final class Clock {
        long now;
    }

    private static long frames(String out) {
        return out.chars().filter(c -> c == '\r').count();
    }

    @Test
    void aThousandUpdatesOneMillisecondApartDrawOneFramePer100MsAndEndWithOneNewline() {
        StringWriter text = new StringWriter();
        Clock clock = new Clock();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), "loading", () -> clock.now);
        long total = 2_000_000_000L;
        for (int i = 0; i <= 1000; i++) {
            bar.bytes(total * i / 1000, total, "model-0000" + (i % 3) + ".safetensors");
            clock.now += MS;
        }
        bar.bytes(total, total, "late report after the end");
        String out = text.toString();
        // frames at 0, 100, ..., 900 ms (ten) and the final one at 1000 ms
        assertEquals(11, frames(out), out);
        assertEquals(1, out.chars().filter(c -> c == '\n').count(), out);
        assertTrue(out.endsWith("\n"), out);
        String last = out.substring(out.lastIndexOf('\r') + 1);
        // 2 GB over the 1000 ms between the first report and the last
        assertTrue(last.startsWith("loading [" + "#".repeat(30) + "] 100% 2.00/2.00 GB, 2.00 GB/s"), last);
        assertFalse(out.contains("late report"), "nothing is drawn after the bar finished: " + out);
    }

    @Test
    void updatesWithinOneRedrawIntervalDrawOnlyTheFirstAndTheFinalFrame() {
        StringWriter text = new StringWriter();
        Clock clock = new Clock();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), "prefill", () -> clock.now);
        for (int i = 0; i <= 1000; i++) {
            bar.tokens(i, 1000);
            clock.now += 99 * MS / 1000; // 1000 updates in 99 ms
        }
        String out = text.toString();
        assertEquals(2, frames(out), out);
        assertTrue(out.substring(out.lastIndexOf('\r') + 1).startsWith("prefill [" + "#".repeat(30) + "] 100% 1000/1000 tokens"), out);
    }

    @Test
    void anUpdateExactlyOneIntervalLaterIsDrawn() {
        StringWriter text = new StringWriter();
        Clock clock = new Clock();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), "scoring", () -> clock.now);
        bar.tokens(1, 10);
        clock.now += 100 * MS - 1;
        bar.tokens(2, 10);
        assertEquals(1, frames(text.toString()), text.toString());
        clock.now += 1;
        bar.tokens(3, 10);
        assertEquals(2, frames(text.toString()), text.toString());
    }

    @Test
    void aShorterLineIsPaddedOverTheLongerOneBeforeIt() {
        StringWriter text = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), "loading", () -> 0L);
        bar.bytes(1, 10, "model-00001-of-00042.safetensors");
        bar.bytes(10, 10, "x");
        String[] frames = text.toString().split("\r");
        assertEquals(3, frames.length, text.toString()); // "", first frame, last frame
        String first = frames[1], last = frames[2].replace("\n", "");
        assertTrue(last.stripTrailing().endsWith(" x"), last);
        assertTrue(last.length() >= first.length(), "the last frame covers the first:\n" + first + "\n" + last);
    }
}
