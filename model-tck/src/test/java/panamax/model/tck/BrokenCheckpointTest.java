package panamax.model.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.model.support.config.HfConfig;
import panamax.model.support.weights.SafetensorsHeader;
import panamax.model.support.weights.SafetensorsWriter;
import panamax.model.support.weights.TensorEntry;
import panamax.model.support.weights.WeightFiles;

/** The broken copies are valid checkpoints that differ from the original in exactly the one tensor. */
class BrokenCheckpointTest {
    @TempDir
    Path tmp;

    static Path gpt2() {
        Path dir = Path.of(System.getProperty("panamax.fixtures", "../../shared/fixtures")).resolve("gpt2-tiny");
        assertTrue(Files.isDirectory(dir), "fixture " + dir + " is missing (set -Dpanamax.fixtures=DIR)");
        return dir;
    }

    @Test
    void withoutATensorEveryOtherTensorKeepsItsShapeAndBytes() throws IOException {
        String gone = "transformer.h.1.attn.c_attn.weight";
        Path copy = BrokenCheckpoint.withoutTensor(gpt2(), gone, tmp.resolve("copy"));
        Map<String, int[]> before = BrokenCheckpoint.tensors(gpt2()), after = BrokenCheckpoint.tensors(copy);
        assertFalse(after.containsKey(gone));
        assertEquals(before.size() - 1, after.size());
        SafetensorsHeader original = header(gpt2().resolve("model.safetensors")), rewritten = header(copy.resolve("model.safetensors"));
        for (String name : after.keySet()) {
            assertArrayEquals(before.get(name), after.get(name), name);
            assertArrayEquals(bytes(gpt2().resolve("model.safetensors"), original.tensors().get(name), original),
                    bytes(copy.resolve("model.safetensors"), rewritten.tensors().get(name), rewritten), name);
        }
        assertEquals(Files.readString(gpt2().resolve("config.json")), Files.readString(copy.resolve("config.json")), "the other files are copied");
    }

    @Test
    void withAnotherShapeOnlyThatTensorsDimsChange() {
        String name = "transformer.wte.weight";
        int[] dims = BrokenCheckpoint.tensors(gpt2()).get(name);
        Path copy = BrokenCheckpoint.withShape(gpt2(), name, BrokenCheckpoint.wrongShape(dims), tmp.resolve("copy"));
        assertArrayEquals(new int[]{dims[1], dims[0]}, BrokenCheckpoint.tensors(copy).get(name));
        assertThrows(IllegalArgumentException.class, () -> BrokenCheckpoint.withShape(gpt2(), name, new int[]{dims[0]}, tmp.resolve("other")));
    }

    @Test
    void aWrongShapeIsTheTransposeOfARectangleElseTheDimsBehindALeadingOne() {
        assertArrayEquals(new int[]{192, 64}, BrokenCheckpoint.wrongShape(new int[]{64, 192}));
        assertArrayEquals(new int[]{1, 64, 64}, BrokenCheckpoint.wrongShape(new int[]{64, 64}));
        assertArrayEquals(new int[]{1, 64}, BrokenCheckpoint.wrongShape(new int[]{64}));
    }

    @Test
    void aTensorOfAShardedCheckpointLeavesItsShardAndTheIndex() throws IOException {
        Path sharded = Files.createDirectories(tmp.resolve("sharded"));
        new SafetensorsWriter().f32("a", new int[]{2}, new float[]{1, 2}).f32("b", new int[]{3}, new float[]{3, 4, 5})
                .write(sharded.resolve("model-00001-of-00002.safetensors"));
        new SafetensorsWriter().f32("c", new int[]{1}, new float[]{6}).write(sharded.resolve("model-00002-of-00002.safetensors"));
        Files.writeString(sharded.resolve(WeightFiles.INDEX), "{\"weight_map\": {\"a\": \"model-00001-of-00002.safetensors\", "
                + "\"b\": \"model-00001-of-00002.safetensors\", \"c\": \"model-00002-of-00002.safetensors\"}}");
        Path copy = BrokenCheckpoint.withoutTensor(sharded, "a", tmp.resolve("copy"));
        assertEquals(java.util.Set.of("b", "c"), BrokenCheckpoint.tensors(copy).keySet());
        HfConfig index = HfConfig.read(copy.resolve(WeightFiles.INDEX));
        HfConfig map = index.child("weight_map").orElseThrow();
        assertFalse(map.has("a"));
        assertTrue(map.has("b") && map.has("c"));
    }

    private static SafetensorsHeader header(Path file) throws IOException {
        return SafetensorsHeader.parse(file, MemorySegment.ofArray(Files.readAllBytes(file)));
    }

    private static byte[] bytes(Path file, TensorEntry e, SafetensorsHeader h) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return Arrays.copyOfRange(all, (int) (h.dataStart() + e.begin()), (int) (h.dataStart() + e.end()));
    }
}
