package panamax.backend.java;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.Map;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * A minimal safetensors reader for tests: maps the file into its own arena (closed by
 * {@link #close()}) and wraps named tensors with {@link Backend#fromSegment}, without copying.
 */
final class Safetensors implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemorySegment data;
    private final JsonNode header;

    Safetensors(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment all = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            long n = all.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0);
            byte[] json = all.asSlice(8, n).toArray(ValueLayout.JAVA_BYTE);
            header = new ObjectMapper().readTree(new String(json, StandardCharsets.UTF_8));
            data = all.asSlice(8 + n);
        }
    }

    /** The fixtures folder: system property {@code panamax.fixtures}, else ../shared/fixtures of the project root. */
    static Path fixtures() {
        String configured = System.getProperty("panamax.fixtures");
        if (configured != null && !configured.isBlank()) return Path.of(configured);
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.exists(here.resolve("backend-java")) ? here : here.getParent();
        return root.resolve("../shared/fixtures").normalize();
    }

    String metadata(String key) {
        return header.get("__metadata__").get(key).asText();
    }

    DType dtype(String name) {
        return switch (entry(name).get("dtype").asText()) {
            case "F32" -> DType.F32;
            case "BF16" -> DType.BF16;
            case "F16" -> DType.F16;
            case "U32" -> DType.U32;
            case "I32" -> DType.I32;
            case "U8" -> DType.U8;
            case "BOOL" -> DType.BOOL;
            default -> throw new IllegalArgumentException("unsupported dtype of " + name + ": " + entry(name).get("dtype"));
        };
    }

    Shape shape(String name) {
        JsonNode s = entry(name).get("shape");
        int[] dims = new int[s.size()];
        for (int i = 0; i < dims.length; i++) dims[i] = s.get(i).asInt();
        return new Shape(dims);
    }

    MemorySegment bytes(String name) {
        JsonNode off = entry(name).get("data_offsets");
        long from = off.get(0).asLong();
        return data.asSlice(from, off.get(1).asLong() - from);
    }

    /** A tensor over the mapped bytes, owned by the caller (close it before this file). */
    Tensor tensor(Backend backend, String name) {
        return backend.fromSegment(bytes(name), shape(name), dtype(name));
    }

    Iterator<Map.Entry<String, JsonNode>> entries() {
        return header.properties().iterator();
    }

    private JsonNode entry(String name) {
        JsonNode e = header.get(name);
        if (e == null) throw new IllegalArgumentException("no tensor " + name + " in fixture");
        return e;
    }

    @Override
    public void close() {
        arena.close();
    }
}
