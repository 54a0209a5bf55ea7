package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The stderr progress bar: redrawn in place, throttled, one final line, nothing after it. */
class ProgressBarTest {

    @Test
    void aThousandQuickUpdatesDrawAFewFramesAndEndWithOneNewline() {
        StringWriter text = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), "loading");
        long total = 2_000_000_000L;
        for (int i = 0; i <= 1000; i++) bar.bytes(total * i / 1000, total, "model-0000" + (i % 3) + ".safetensors");
        bar.bytes(total, total, "late report after the end");
        String out = text.toString();
        long frames = out.chars().filter(c -> c == '\r').count();
        // the first frame, one per 100 ms at most (the loop takes far less), and the final one
        assertTrue(frames >= 2 && frames <= 5, frames + " frames: " + out);
        assertEquals(1, out.chars().filter(c -> c == '\n').count(), out);
        assertTrue(out.endsWith("\n"), out);
        String last = out.substring(out.lastIndexOf('\r') + 1);
        assertTrue(last.startsWith("loading [" + "#".repeat(30) + "] 100% 2.00/2.00 GB"), last);
        assertTrue(!out.contains("late report"), "nothing is drawn after the bar finished: " + out);
    }

    @Test
    void aShorterLineIsPaddedOverTheLongerOneBeforeIt() {
        StringWriter text = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(text), "loading");
        bar.bytes(1, 10, "model-00001-of-00042.safetensors");
        bar.bytes(10, 10, "x");
        String[] frames = text.toString().split("\r");
        assertEquals(3, frames.length, text.toString()); // "", first frame, last frame
        String first = frames[1], last = frames[2].replace("\n", "");
        assertTrue(last.stripTrailing().endsWith(" x"), last);
        assertTrue(last.length() >= first.length(), "the last frame covers the first:\n" + first + "\n" + last);
    }
}
