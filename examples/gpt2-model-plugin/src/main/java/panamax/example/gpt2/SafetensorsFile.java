package panamax.example.gpt2;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import panamax.api.error.BadModelFileException;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * One safetensors file memory-mapped into an arena the model owns; tensors wrap slices of the
 * mapping (no copy on backends that address it). A deliberately small reader — a third-party
 * plugin may depend on panamax.api only — that still checks every entry against the file.
 */
final class SafetensorsFile {
    private record Entry(DType dtype, int[] shape, long begin, long end) {
    }

    private final Path file;
    private final MemorySegment mapping;
    private final long dataStart;
    private final Map<String, Entry> entries = new HashMap<>();

    private SafetensorsFile(Path file, MemorySegment mapping, long dataStart) {
        this.file = file;
        this.mapping = mapping;
        this.dataStart = dataStart;
    }

    /**
     * Maps {@code file} into {@code arena} (borrowed) and checks its header.
     *
     * @throws BadModelFileException naming the file and entry that is malformed
     */
    static SafetensorsFile map(Path file, Arena arena) {
        MemorySegment m;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            m = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot map it: " + e.getMessage(), e);
        }
        if (m.byteSize() < 8) throw new BadModelFileException(file, "header length", "8 bytes", m.byteSize() + " bytes");
        long n = m.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
        if (n < 2 || n > m.byteSize() - 8 || n > (100 << 20)) {
            throw new BadModelFileException(file, "header length", "at most " + (m.byteSize() - 8) + " bytes", Long.toUnsignedString(n));
        }
        SafetensorsFile f = new SafetensorsFile(file, m, 8 + n);
        Object header;
        try {
            header = Json.parse(new String(m.asSlice(8, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new BadModelFileException(file, "header", "a JSON object", e.getMessage());
        }
        if (!(header instanceof Map<?, ?> root)) throw new BadModelFileException(file, "header", "a JSON object", String.valueOf(header));
        long dataLength = m.byteSize() - f.dataStart;
        root.forEach((k, v) -> {
            if (!"__metadata__".equals(k)) f.entries.put((String) k, entry(file, (String) k, v, dataLength));
        });
        return f;
    }

    private static Entry entry(Path file, String name, Object v, long dataLength) {
        String where = "tensor " + name;
        if (!(v instanceof Map<?, ?> e)) throw new BadModelFileException(file, where, "an object", String.valueOf(v));
        DType dtype = switch (String.valueOf(e.get("dtype"))) {
            case "BF16" -> DType.BF16;
            case "F16" -> DType.F16;
            case "F32" -> DType.F32;
            default -> throw new BadModelFileException(file, where + " dtype", "BF16, F16 or F32", String.valueOf(e.get("dtype")));
        };
        if (!(e.get("shape") instanceof List<?> dims) || !(e.get("data_offsets") instanceof List<?> off) || off.size() != 2
                || !(off.get(0) instanceof Long begin) || !(off.get(1) instanceof Long end)) {
            throw new BadModelFileException(file, where, "shape and data_offsets [begin, end]", v.toString());
        }
        int[] shape = new int[dims.size()];
        long count = 1;
        for (int i = 0; i < shape.length; i++) {
            if (!(dims.get(i) instanceof Long d) || d < 0 || d > Integer.MAX_VALUE) throw new BadModelFileException(file, where + " shape", "integers", dims.toString());
            shape[i] = (int) (long) d;
            count = count * d > (1L << 40) ? -1 : count * d;
        }
        if (begin < 0 || end < begin || end > dataLength || count < 0 || (end - begin) != count * dtype.byteSize()) {
            throw new BadModelFileException(file, where + " data_offsets", "a range of dtype × shape bytes inside the data section of " + dataLength,
                    "[" + begin + ", " + end + "]");
        }
        return new Entry(dtype, shape, begin, end);
    }

    boolean has(String name) {
        return entries.containsKey(name);
    }

    /**
     * The tensor {@code name}, checked against {@code shape}; owned by the caller.
     *
     * @throws BadModelFileException naming the file and tensor when absent or of another shape
     */
    Tensor load(String name, Backend backend, int... shape) {
        Entry e = entries.get(name);
        if (e == null) throw new BadModelFileException(file, "tensor " + name, "present", "absent");
        if (!java.util.Arrays.equals(e.shape(), shape)) {
            throw new BadModelFileException(file, "tensor " + name + " shape", java.util.Arrays.toString(shape) + " (from config.json)",
                    java.util.Arrays.toString(e.shape()));
        }
        MemorySegment data = mapping.asSlice(dataStart + e.begin(), e.end() - e.begin());
        if (data.address() % e.dtype().byteSize() != 0) {
            data = MemorySegment.ofArray(data.toArray(ValueLayout.JAVA_BYTE)); // a misaligned header: the backend copies
        }
        return backend.fromSegment(data, Shape.of(shape), e.dtype());
    }
}
