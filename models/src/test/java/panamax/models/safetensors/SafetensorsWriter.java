package panamax.models.safetensors;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes small safetensors files for tests: raw little-endian bytes per tensor, header padded to 8. */
public final class SafetensorsWriter {
    private record Item(String dtype, int[] shape, byte[] bytes) {
    }

    private final Map<String, Item> items = new LinkedHashMap<>();

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
        StringBuilder header = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
        long offset = 0;
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        for (var e : items.entrySet()) {
            Item it = e.getValue();
            header.append(",\"").append(e.getKey()).append("\":{\"dtype\":\"").append(it.dtype()).append("\",\"shape\":")
                    .append(java.util.Arrays.toString(it.shape()).replace(" ", "")).append(",\"data_offsets\":[")
                    .append(offset).append(',').append(offset + it.bytes().length).append("]}");
            data.writeBytes(it.bytes());
            offset += it.bytes().length;
        }
        header.append('}');
        while ((header.length() + 8) % 8 != 0) header.append(' ');
        byte[] h = header.toString().getBytes(StandardCharsets.UTF_8);
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
