package panamax.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code panamax plan --model gemma3n-tiny}: which layers lend their KV, which borrow it, and what that saves. */
class PlanKvSharingTest {

    @Test
    void planOfAGemma3nDirectoryShowsDonorsBorrowersAndTheSavedBytes() {
        Path dir = Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures"), "new-families", "gemma3n-tiny");
        if (!Files.isRegularFile(dir.resolve("config.json"))) fail("fixture " + dir.toAbsolutePath() + " is missing");
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int exit = Cli.run(new String[] {"plan", "--model", dir.toString(), "--context", "512"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, err.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("model plugin gemma3n"), text);
        assertTrue(text.contains("sliding window 8; lends its KV to layer 4"), text);
        assertTrue(text.contains("full attention; lends its KV to layer 5"), text);
        assertTrue(text.contains("reads layer 3's cache"), text);
        assertTrue(text.contains("reads layer 2's cache"), text);
        // f32 identity KV, 2 kv heads x 16 features x 4 bytes, K and V: 256 bytes a token; the borrowers
        // would keep 8 (sliding) + 512 (full) tokens of it
        assertTrue(text.contains("kv sharing      layer 4 reads layer 3's KV, layer 5 layer 2's; they store none: 133,120 bytes (49.2 %)"), text);
        assertTrue(text.contains("projected KV    137,216 bytes"), text);
    }
}
