package panamax.demo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoModelTest {
    @Test
    void theDirectoryHoldsEveryFileOfTheModel() throws IOException {
        Path dir = DemoModel.directory();
        for (String f : DemoModel.FILES) assertTrue(Files.size(dir.resolve(f)) > 0, f);
        assertTrue(Files.readString(dir.resolve("config.json")).contains("\"LlamaForCausalLM\""));
        // the repository budget for the bundled weights is 12 MB
        assertTrue(Files.size(dir.resolve("model.safetensors")) < 12_000_000, "model.safetensors is over 12 MB");
    }

    @Test
    void extractionIsCompleteReusedAndLeavesNoPartialFolder(@TempDir Path cache) throws IOException {
        Path first = DemoModel.extractInto(cache);
        for (String f : DemoModel.FILES) {
            assertArrayEquals(Files.readAllBytes(DemoModel.directory().resolve(f)), Files.readAllBytes(first.resolve(f)), f);
        }
        long modified = Files.getLastModifiedTime(first.resolve("model.safetensors")).toMillis();
        assertEquals(first, DemoModel.extractInto(cache));
        assertEquals(modified, Files.getLastModifiedTime(first.resolve("model.safetensors")).toMillis(), "extracted twice");
        try (Stream<Path> entries = Files.list(cache)) {
            assertEquals(1, entries.count(), "only the finished folder remains");
        }
    }

    @Test
    void aFolderMissingAFileIsExtractedAgain(@TempDir Path cache) throws IOException {
        Path first = DemoModel.extractInto(cache);
        Files.delete(first.resolve("tokenizer.json"));
        Files.delete(first.resolve("model.safetensors"));
        // an incomplete folder (a user deleted a file) is not trusted; a fresh copy replaces it
        Path second = DemoModel.extractInto(cache);
        for (String f : java.util.List.of("tokenizer.json", "model.safetensors")) {
            assertTrue(Files.isRegularFile(second.resolve(f)), f + " was deleted and must be extracted again");
            assertArrayEquals(Files.readAllBytes(DemoModel.directory().resolve(f)), Files.readAllBytes(second.resolve(f)), f);
        }
        for (String f : DemoModel.FILES) assertTrue(Files.isRegularFile(second.resolve(f)), f);
    }

    @Test
    void anUnusableCacheFolderIsAnErrorNamingIt(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("not-a-folder"), "x");
        java.io.UncheckedIOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.UncheckedIOException.class,
                () -> DemoModel.extractInto(file));
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertEquals("x", Files.readString(file), "nothing was written over it");
    }
}
