package panamax.models.decoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.models.family.LlamaPlugin;
import panamax.model.support.weights.SafetensorsWriter;

/** Loading variants of the llama-tiny fixture: shards, dtypes, and every kind of malformed checkpoint. */
class CheckpointLoadingTest {
    private static Backend backend;
    private static Checkpoints.Weights weights;
    private static float[] reference;

    @BeforeAll
    static void readFixture() {
        backend = Checkpoints.backend();
        weights = Checkpoints.read(Checkpoints.fixture("llama-tiny"), backend);
        try (RuntimeModel m = new LlamaPlugin().load(Checkpoints.fixture("llama-tiny"), backend)) {
            reference = Checkpoints.logits(m, backend, Checkpoints.PROMPT);
        }
    }

    @AfterAll
    static void close() {
        backend.close();
    }

    /** Writes the fixture's weights (all or some) in {@code dtype} to {@code file}. */
    private static void write(Path file, String dtype, java.util.function.Predicate<String> which) throws IOException {
        SafetensorsWriter w = new SafetensorsWriter();
        weights.values().forEach((name, v) -> {
            if (!which.test(name)) return;
            int[] shape = weights.shapes().get(name);
            switch (dtype) {
                case "F32" -> w.f32(name, shape, v);
                case "F16" -> {
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(v.length * 2).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    for (float f : v) b.putShort(Float.floatToFloat16(f));
                    w.add(name, "F16", shape, b.array());
                }
                default -> w.bf16(name, shape, v);
            }
        });
        w.write(file);
    }

    private static float[] logitsOf(Path dir) {
        try (RuntimeModel m = new LlamaPlugin().load(dir, backend)) {
            return Checkpoints.logits(m, backend, Checkpoints.PROMPT);
        }
    }

    private static BadModelFileException rejected(Path dir, String... mentions) {
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> new LlamaPlugin().load(dir, backend).close());
        for (String m : mentions) assertTrue(e.getMessage().contains(m), "expected '" + m + "' in: " + e.getMessage());
        return e;
    }

    @Test
    void f32AndF16CopiesOfTheWeightsGiveTheSameLogits(@TempDir Path tmp) throws IOException {
        for (String dtype : List.of("F32", "F16")) {
            Path dir = Checkpoints.copyConfig("llama-tiny", tmp.resolve(dtype), null);
            write(dir.resolve("model.safetensors"), dtype, n -> true);
            double diff = Checkpoints.maxAbsDiff(reference, logitsOf(dir));
            // bf16 values are exact in f32, but the backend's f32 and bf16 kernels may sum in a different
            // order (f32 rounding only); f16 rounds the smallest weights into subnormals
            assertTrue(diff <= (dtype.equals("F32") ? 1e-5 : 1e-3), dtype + " differs by " + diff);
        }
    }

    @Test
    void aShardedCheckpointGivesTheSameLogitsAsTheSingleFile(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, null);
        write(dir.resolve("model-00001-of-00002.safetensors"), "BF16", n -> n.contains("layers.0.") || n.contains("embed"));
        write(dir.resolve("model-00002-of-00002.safetensors"), "BF16", n -> !(n.contains("layers.0.") || n.contains("embed")));
        StringBuilder index = new StringBuilder("{\"metadata\":{},\"weight_map\":{");
        List<String> entries = new ArrayList<>();
        weights.values().keySet().forEach(n -> entries.add("\"" + n + "\":\"model-0000" + (n.contains("layers.0.") || n.contains("embed") ? 1 : 2) + "-of-00002.safetensors\""));
        index.append(String.join(",", entries)).append("}}");
        Files.writeString(dir.resolve("model.safetensors.index.json"), index);
        // same bytes, same kernels; not bit-exact only because Vector API lane reductions may sum in
        // another order before and after C2 compiles a kernel (the reference ran earlier in this JVM)
        assertEquals(0.0, Checkpoints.maxAbsDiff(reference, logitsOf(dir)), 1e-5);
    }

    @Test
    void copiedWeightsGiveTheSameLogitsAndProgressCountsEveryShardByteOnce(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, null);
        write(dir.resolve("model-00001-of-00002.safetensors"), "BF16", n -> n.contains("embed"));
        write(dir.resolve("model-00002-of-00002.safetensors"), "BF16", n -> !n.contains("embed"));
        List<String> entries = new ArrayList<>();
        weights.values().keySet().forEach(n -> entries.add("\"" + n + "\":\"model-0000" + (n.contains("embed") ? 1 : 2) + "-of-00002.safetensors\""));
        Files.writeString(dir.resolve("model.safetensors.index.json"), "{\"weight_map\":{" + String.join(",", entries) + "}}");
        long onDisk = Files.size(dir.resolve("model-00001-of-00002.safetensors")) + Files.size(dir.resolve("model-00002-of-00002.safetensors"));
        for (LoadOptions.Weights placement : LoadOptions.Weights.values()) {
            List<long[]> reports = new ArrayList<>();
            List<String> names = new ArrayList<>();
            LoadOptions options = new LoadOptions(placement, (what, done, total) -> {
                reports.add(new long[] {done, total});
                names.add(what);
            });
            try (RuntimeModel m = new LlamaPlugin().load(dir, backend, options)) {
                assertEquals(0.0, Checkpoints.maxAbsDiff(reference, Checkpoints.logits(m, backend, Checkpoints.PROMPT)), 1e-5, placement.name());
            }
            assertTrue(reports.size() >= 3, placement + ": a start and one report per shard at least, got " + reports.size());
            for (int i = 0; i < reports.size(); i++) {
                assertEquals(onDisk, reports.get(i)[1], placement + ": total");
                if (i > 0) assertTrue(reports.get(i)[0] > reports.get(i - 1)[0], placement + ": done grows");
            }
            assertEquals(0L, reports.getFirst()[0], placement + ": a first report of 0 as reading begins");
            assertEquals(onDisk, reports.getLast()[0], placement + ": ends at the total");
            assertTrue(names.containsAll(List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")), names.toString());
        }
    }

    @Test
    void anIndexNamingAMissingShardIsRejectedNamingTheIndex(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, null);
        Files.writeString(dir.resolve("model.safetensors.index.json"), "{\"weight_map\":{\"model.norm.weight\":\"nope.safetensors\"}}");
        rejected(dir, "model.safetensors.index.json", "weight_map.model.norm.weight", "no such file");
    }

    @Test
    void aMissingTensorIsNamedWithItsFile(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, null);
        write(dir.resolve("model.safetensors"), "BF16", n -> !n.equals("model.layers.2.mlp.up_proj.weight"));
        rejected(dir, "model.safetensors", "tensor model.layers.2.mlp.up_proj.weight", "absent");
    }

    @Test
    void aShapeThatDisagreesWithTheConfigIsNamed(@TempDir Path tmp) throws IOException {
        String config = Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json")).replace("\"intermediate_size\": 128", "\"intermediate_size\": 96");
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, config);
        write(dir.resolve("model.safetensors"), "BF16", n -> true);
        rejected(dir, "tensor model.layers.0.mlp.gate_proj.weight shape", "[96, 64]", "[128, 64]");
    }

    @Test
    void aNonFloatWeightIsRejectedNamingItsDtype(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, null);
        SafetensorsWriter w = new SafetensorsWriter();
        weights.values().forEach((n, v) -> {
            if (n.equals("model.norm.weight")) w.add(n, "I32", new int[]{64}, new byte[256]);
            else w.bf16(n, weights.shapes().get(n), v);
        });
        w.write(dir.resolve("model.safetensors"));
        rejected(dir, "tensor model.norm.weight dtype", "I32");
    }

    @Test
    void aTruncatedFileIsRejectedNamingIt(@TempDir Path tmp) throws IOException {
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, null);
        byte[] full = Files.readAllBytes(Checkpoints.fixture("llama-tiny").resolve("model.safetensors"));
        Files.write(dir.resolve("model.safetensors"), java.util.Arrays.copyOf(full, full.length / 2));
        rejected(dir, "model.safetensors", "data_offsets");
    }

    @Test
    void aDirectoryWithoutWeightsOrConfigIsRejected(@TempDir Path tmp) throws IOException {
        rejected(tmp, "config.json", "no such file");
        Checkpoints.copyConfig("llama-tiny", tmp, null);
        rejected(tmp, "model.safetensors", "none");
    }

    @Test
    void aConfigOfAnotherArchitectureIsRejectedByTheFamilyPlugin(@TempDir Path tmp) throws IOException {
        String config = Files.readString(Checkpoints.fixture("llama-tiny").resolve("config.json")).replace("\"model_type\": \"llama\"", "\"model_type\": \"mamba\"");
        Path dir = Checkpoints.copyConfig("llama-tiny", tmp, config);
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> new LlamaPlugin().describe(dir));
        assertTrue(e.getMessage().contains("field model_type") && e.getMessage().contains("mamba"), e.getMessage());
    }

    @Test
    void closingTheModelReleasesEveryWeightTensor() {
        long before = backend.memoryStats().activeBytes();
        try (RuntimeModel m = new LlamaPlugin().load(Checkpoints.fixture("llama-tiny"), backend)) {
            assertEquals(3, m.spec().layers().size());
        }
        assertEquals(before, backend.memoryStats().activeBytes());
    }
}
