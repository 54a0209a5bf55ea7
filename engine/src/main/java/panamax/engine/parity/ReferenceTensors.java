package panamax.engine.parity;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import panamax.api.error.BadModelFileException;
import panamax.api.tensor.DType;
import panamax.model.support.weights.SafetensorsHeader;
import panamax.model.support.weights.TensorEntry;

/**
 * The F32 and I32 tensors of a small safetensors reference file (logits and ids), read into Java
 * arrays through the checked header of model support. Reference files are small, so they are read
 * whole rather than mapped. Immutable.
 */
final class ReferenceTensors {
    /** One tensor: dims and either floats or ints. */
    record Entry(int[] dims, float[] floats, int[] ints) {
    }

    private final Path file;
    private final MemorySegment contents;
    private final SafetensorsHeader header;

    private ReferenceTensors(Path file, MemorySegment contents, SafetensorsHeader header) {
        this.file = file;
        this.contents = contents;
        this.header = header;
    }

    static ReferenceTensors read(Path file) {
        MemorySegment contents;
        try {
            contents = MemorySegment.ofArray(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot read it", e);
        }
        return new ReferenceTensors(file, contents, SafetensorsHeader.parse(file, contents));
    }

    Entry get(String name, int rank, boolean floats) {
        TensorEntry e = header.tensors().get(name);
        DType wanted = floats ? DType.F32 : DType.I32;
        if (e == null || e.shape().rank() != rank || e.dtype() != wanted) {
            throw new BadModelFileException(file, "tensor " + name, "a rank-" + rank + " " + wanted + " tensor",
                    e == null ? "absent" : "rank " + e.shape().rank() + " " + e.dtype());
        }
        MemorySegment data = contents.asSlice(header.dataStart() + e.begin(), e.byteSize());
        return floats ? new Entry(e.shape().dims(), data.toArray(ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)), null)
                : new Entry(e.shape().dims(), null, data.toArray(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)));
    }
}
