package panamax.model.support.weights;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import panamax.api.tensor.DType;

/**
 * Builds a safetensors file in memory: tensors in the order added, each from raw little-endian
 * bytes, the header padded with spaces to a multiple of 8. For small files (test checkpoints, a
 * checkpoint rewritten by a test kit); not thread-safe.
 *
 * {@snippet :
 * new SafetensorsWriter().f32("model.norm.weight", new int[]{64}, ones).write(dir.resolve("model.safetensors"));
 * }
 */
public final class SafetensorsWriter {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Item(String dtype, int[] shape, byte[] bytes) {
    }

    private final Map<String, Item> items = new LinkedHashMap<>();

    /** Adds {@code name} of {@code dtype} with the given bytes. */
    public SafetensorsWriter add(String name, DType dtype, int[] shape, byte[] bytes) {
        return add(name, dtype.name(), shape, bytes);
    }

    /** Adds {@code name} with a dtype as the format spells it (e.g. {@code "BF16"}), checked by no one: tests write bad files with it. */
    public SafetensorsWriter add(String name, String dtype, int[] shape, byte[] bytes) {
        items.put(name, new Item(dtype, shape, bytes));
        return this;
    }

    public SafetensorsWriter f32(String name, int[] shape, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) b.putFloat(v);
        return add(name, "F32", shape, b.array());
    }

    public SafetensorsWriter bf16(String name, int[] shape, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            int bits = Float.floatToRawIntBits(v);
            b.putShort((short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16));
        }
        return add(name, "BF16", shape, b.array());
    }

    public SafetensorsWriter u32(String name, int[] shape, int[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int v : values) b.putInt(v);
        return add(name, "U32", shape, b.array());
    }

    /** The file's bytes. */
    public byte[] bytes() {
        ObjectNode header = JSON.createObjectNode();
        header.putObject("__metadata__").put("format", "pt");
        long offset = 0;
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (var e : items.entrySet()) {
            Item it = e.getValue();
            ObjectNode entry = header.putObject(e.getKey()).put("dtype", it.dtype());
            var shape = entry.putArray("shape");
            for (int d : it.shape()) shape.add(d);
            entry.putArray("data_offsets").add(offset).add(offset + it.bytes().length);
            data.writeBytes(it.bytes());
            offset += it.bytes().length;
        }
        String text;
        try {
            text = JSON.writeValueAsString(header);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
        byte[] json = text.getBytes(StandardCharsets.UTF_8);
        byte[] h = java.util.Arrays.copyOf(json, (json.length + 7) / 8 * 8);
        java.util.Arrays.fill(h, json.length, h.length, (byte) ' ');
        ByteBuffer out = ByteBuffer.allocate(8 + h.length + data.size()).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(h.length).put(h).put(data.toByteArray());
        return out.array();
    }

    public Path write(Path file) throws IOException {
        Files.write(file, bytes());
        return file;
    }

    /** A file whose header is {@code json} verbatim, followed by {@code dataBytes} zero bytes. */
    public static byte[] raw(String json, int dataBytes) {
        byte[] h = json.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(h.length).put(h);
        return out.array();
    }
}
