package panamax.model.support.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;
import panamax.api.tensor.DType;
import panamax.api.tensor.MemoryStats;
import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Linear;

/** Weights by name: shapes checked with errors that name file, tensor, expected and found; any dtype; nothing leaked on failure. */
class WeightSourceTest {
    @TempDir
    Path dir;
    private Backend backend;
    private Arena arena;
    private WeightSource weights;

    @BeforeEach
    void open() throws IOException {
        new SafetensorsWriter()
                .f32("m.weight", new int[]{3, 4}, new float[12])
                .f32("c.weight", new int[]{3, 4}, new float[12])
                .f32("c.bias", new int[]{4}, new float[4])
                .f32("ln.weight", new int[]{4}, new float[4])
                .u32("ids", new int[]{2}, new int[]{7, 9})
                .write(dir.resolve("model.safetensors"));
        BackendProvider java = ServiceLoader.load(BackendProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.id().equals("java")).findFirst().orElseThrow(() -> new AssertionError("no java backend on the test path"));
        backend = java.create(new BackendOptions(1, Optional.empty(), Map.of()));
        arena = Arena.ofShared();
        weights = WeightSource.open(dir, arena, backend, LoadOptions.defaults(), Optional.empty());
    }

    @AfterEach
    void close() {
        arena.close();
        backend.close();
    }

    @Test
    void aLinearWeightOfAnotherShapeNamesTheTensorTheExpectedAndTheFoundDims() {
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> weights.linear("m", 4, 3, false));
        assertEquals(dir.resolve("model.safetensors") + ": tensor m.weight shape: expected [4, 3] (from config.json), found [3, 4]", e.getMessage());
    }

    @Test
    void aMissingTensorIsNamedAndWhatWasLoadedBeforeItIsReleased() {
        MemoryStats before = backend.memoryStats();
        BadModelFileException bias = assertThrows(BadModelFileException.class, () -> weights.linear("m", 3, 4, true));
        assertTrue(bias.getMessage().contains("tensor m.bias: expected present"), bias.getMessage());
        BadModelFileException norm = assertThrows(BadModelFileException.class, () -> weights.layerNorm("ln", 4, 1e-5));
        assertTrue(norm.getMessage().contains("tensor ln.bias"), norm.getMessage());
        assertEquals(before.mappedBytes(), backend.memoryStats().mappedBytes(), "the norm's weight, loaded before its bias failed, is released");
        assertEquals(before.activeBytes(), backend.memoryStats().activeBytes());
    }

    @Test
    void aConv1dModuleReadsItsWeightInputMajor() {
        try (Linear conv = weights.inputMajor("c", 3, 4, true)) {
            assertEquals(4, conv.outFeatures());
        }
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> weights.inputMajor("c", 4, 3, true));
        assertTrue(e.getMessage().contains("tensor c.bias shape: expected [3]"), e.getMessage());
    }

    @Test
    void anyDtypeLoadsAsStoredWrappingTheMappedFile() {
        long mapped = backend.memoryStats().mappedBytes();
        try (Tensor ids = weights.tensor("ids", 2); Tensor anySize = weights.tensor("m.weight", -1, 4)) {
            assertEquals(DType.U32, ids.dtype());
            assertEquals(3, anySize.dim(0));
            assertEquals(mapped + 2 * 4 + 12 * 4, backend.memoryStats().mappedBytes(), "both tensors are views of the mapped file");
        }
        assertEquals(mapped, backend.memoryStats().mappedBytes());
        assertTrue(weights.has("ids") && !weights.has("nope"));
    }
}
