package panamax.models.safetensors;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import panamax.api.error.BadModelFileException;

/**
 * A safetensors file memory-mapped read-only into an arena the caller owns (the model's); tensor
 * data are slices of the mapping, never copies. Valid while that arena is open. Thread-safe.
 *
 * @param file    the file
 * @param header  its checked header
 * @param mapping the whole file
 */
public record MappedSafetensors(Path file, SafetensorsHeader header, MemorySegment mapping) {

    /**
     * Maps {@code file} into {@code arena} (borrowed) and checks its header.
     *
     * @throws BadModelFileException when the file cannot be read or its header is malformed
     */
    public static MappedSafetensors map(Path file, Arena arena) {
        MemorySegment mapping;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
        } catch (IOException | UnsupportedOperationException e) {
            throw new BadModelFileException(file, "cannot map it: " + e.getMessage(), e);
        }
        return new MappedSafetensors(file, SafetensorsHeader.parse(file, mapping), mapping);
    }

    /** The bytes of {@code entry} (a slice of the mapping). */
    public MemorySegment data(TensorEntry entry) {
        return mapping.asSlice(header.dataStart() + entry.begin(), entry.byteSize());
    }
}
