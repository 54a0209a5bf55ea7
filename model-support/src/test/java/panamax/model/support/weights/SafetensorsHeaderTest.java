package panamax.model.support.weights;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import panamax.api.error.BadModelFileException;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;

class SafetensorsHeaderTest {
    private static final Path FILE = Path.of("weights.safetensors");

    private static SafetensorsHeader parse(byte[] bytes) {
        return SafetensorsHeader.parse(FILE, MemorySegment.ofArray(bytes));
    }

    private static BadModelFileException rejects(byte[] bytes, String... mentions) {
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> parse(bytes));
        assertTrue(e.getMessage().startsWith(FILE.toString()), e.getMessage());
        for (String m : mentions) assertTrue(e.getMessage().contains(m), "expected '" + m + "' in: " + e.getMessage());
        return e;
    }

    @Test
    void aWrittenFileReadsBackWithDtypesShapesAndOffsets() {
        byte[] bytes = new SafetensorsWriter().bf16("a", new int[]{2, 3}, new float[6]).f32("b", new int[]{4}, new float[4]).bytes();
        SafetensorsHeader h = parse(bytes);
        assertEquals(2, h.tensors().size());
        TensorEntry a = h.tensors().get("a"), b = h.tensors().get("b");
        assertEquals(DType.BF16, a.dtype());
        assertEquals(Shape.of(2, 3), a.shape());
        assertEquals(0, a.begin());
        assertEquals(12, a.end());
        assertEquals(DType.F32, b.dtype());
        assertEquals(12, b.begin());
        assertEquals(28, b.end());
        assertEquals(bytes.length - 28, h.dataStart());
    }

    @Test
    void aFileShorterThanItsLengthPrefixIsRejected() {
        rejects(new byte[5], "header length");
        byte[] ok = new SafetensorsWriter().f32("w", new int[]{4}, new float[4]).bytes();
        rejects(Arrays.copyOf(ok, 20), "header length");
    }

    @Test
    void truncatedDataIsNamedByTensor() {
        byte[] ok = new SafetensorsWriter().f32("model.norm.weight", new int[]{4}, new float[4]).bytes();
        rejects(Arrays.copyOf(ok, ok.length - 1), "tensor model.norm.weight data_offsets", "data section");
    }

    @Test
    void offsetsThatDisagreeWithShapeAndDtypeAreRejected() {
        rejects(SafetensorsWriter.raw("{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8), "tensor w", "12 bytes");
        rejects(SafetensorsWriter.raw("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8), "tensor w data_offsets");
        rejects(SafetensorsWriter.raw("{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[-1,7]}}", 8), "tensor w data_offsets");
    }

    @Test
    void overlappingTensorsAreRejectedNamingBoth() {
        rejects(SafetensorsWriter.raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12), "tensor b", "overlap with tensor a");
    }

    @Test
    void unknownDtypesBadJsonAndHugeShapesAreRejected() {
        rejects(SafetensorsWriter.raw("{\"w\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8), "tensor w dtype", "F64");
        rejects(SafetensorsWriter.raw("{\"w\":", 0), "header", "invalid JSON");
        rejects(SafetensorsWriter.raw("[1,2]", 0), "header", "a JSON object");
        rejects(SafetensorsWriter.raw("{\"w\":{\"dtype\":\"U8\",\"shape\":[2147483647,2147483647,2147483647],\"data_offsets\":[0,1]}}", 1), "tensor w");
        rejects(SafetensorsWriter.raw("{\"a\":{},\"a\":{}}", 0), "invalid JSON");
    }
}
