package panamax.engine.parity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import panamax.api.error.BadModelFileException;
import panamax.model.support.weights.SafetensorsWriter;

/** A reference file is read tensor by tensor; a missing or mistyped one is named. */
class ParityReferenceTest {
    @TempDir
    Path dir;

    /** A reference of T = 2 prompt tokens, N = 1 step, B = 2 rows, V = 3. */
    private SafetensorsWriter reference() {
        return new SafetensorsWriter()
                .add("single.ids", "I32", new int[]{1, 2}, ints(5, 6))
                .f32("single.logits", new int[]{1, 2, 3}, new float[]{0, 1, 2, 3, 4, 5})
                .add("single.greedy", "I32", new int[]{1, 1}, ints(2))
                .f32("single.step_logits", new int[]{1, 1, 3}, new float[]{6, 7, 8})
                .add("batch.ids", "I32", new int[]{2, 2}, ints(0, 5, 6, 7))
                .add("batch.mask", "I32", new int[]{2, 2}, ints(0, 1, 1, 1))
                .f32("batch.last_logits", new int[]{2, 3}, new float[6])
                .add("batch.greedy", "I32", new int[]{2, 1}, ints(1, 2))
                .f32("batch.step_logits", new int[]{2, 1, 3}, new float[6]);
    }

    @Test
    void aWellFormedReferenceReadsIntoRows() throws IOException {
        ParityReference ref = ParityReference.read(reference().write(dir.resolve("reference.safetensors")));
        assertEquals(3, ref.vocab());
        assertArrayEquals(new int[]{5, 6}, ref.singleIds());
        assertArrayEquals(new float[]{0, 1, 2, 3, 4, 5}, ref.singleLogits());
        assertArrayEquals(new int[]{6, 7}, ref.batchIds()[1]);
        assertArrayEquals(new int[]{0, 1}, ref.batchMask()[0]);
    }

    @Test
    void aTensorOfTheWrongDtypeIsNamedWithWhatWasExpected() throws IOException {
        Path file = reference().f32("single.ids", new int[]{1, 2}, new float[2]).write(dir.resolve("reference.safetensors"));
        BadModelFileException e = assertThrows(BadModelFileException.class, () -> ParityReference.read(file));
        assertEquals(file + ": tensor single.ids: expected a rank-2 I32 tensor, found rank 2 F32", e.getMessage());
    }

    private static byte[] ints(int... values) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(values.length * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int v : values) b.putInt(v);
        return b.array();
    }
}
