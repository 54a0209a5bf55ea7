package panamax.engine.parity;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import panamax.api.error.BadModelFileException;

/**
 * The F32 and I32 tensors of a small safetensors reference file (logits and ids), read into Java
 * arrays. Reference files are small, so they are read whole rather than mapped. Immutable.
 */
final class ReferenceTensors {
    /** One tensor: dims and either floats or ints. */
    record Entry(int[] dims, float[] floats, int[] ints) {
    }

    private final Path file;
    private final Map<String, Entry> entries;

    private ReferenceTensors(Path file, Map<String, Entry> entries) {
        this.file = file;
        this.entries = entries;
    }

    static ReferenceTensors read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot read it", e);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 8) throw new BadModelFileException(file, "header length", "8 bytes", bytes.length + " bytes");
        long n = buf.getLong(0);
        if (n < 2 || n > bytes.length - 8) throw new BadModelFileException(file, "header length", "at most " + (bytes.length - 8), Long.toString(n));
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(new String(bytes, 8, (int) n, java.nio.charset.StandardCharsets.UTF_8));
        } catch (JacksonException e) {
            throw new BadModelFileException(file, "header", "a JSON object", e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) throw new BadModelFileException(file, "header", "a JSON object", String.valueOf(root));
        long data = 8 + n;
        Map<String, Entry> out = new HashMap<>();
        for (var it = root.fields(); it.hasNext(); ) {
            var f = it.next();
            if (f.getKey().equals("__metadata__")) continue;
            JsonNode e = f.getValue();
            String dtype = e.path("dtype").asText();
            JsonNode shape = e.path("shape");
            int[] dims = new int[shape.size()];
            long count = 1;
            for (int i = 0; i < dims.length; i++) {
                dims[i] = shape.get(i).asInt();
                count *= dims[i];
            }
            long begin = e.path("data_offsets").path(0).asLong(-1), end = e.path("data_offsets").path(1).asLong(-1);
            if (!dtype.equals("F32") && !dtype.equals("I32")) continue; // not something a reference compares
            if (begin < 0 || end < begin || data + end > bytes.length || (end - begin) != count * 4) {
                throw new BadModelFileException(file, "tensor " + f.getKey() + " data_offsets", "a range of " + count * 4 + " bytes inside the file",
                        "[" + begin + ", " + end + "]");
            }
            ByteBuffer slice = buf.slice((int) (data + begin), (int) (end - begin)).order(ByteOrder.LITTLE_ENDIAN);
            if (dtype.equals("F32")) {
                float[] v = new float[(int) count];
                slice.asFloatBuffer().get(v);
                out.put(f.getKey(), new Entry(dims, v, null));
            } else {
                int[] v = new int[(int) count];
                slice.asIntBuffer().get(v);
                out.put(f.getKey(), new Entry(dims, null, v));
            }
        }
        return new ReferenceTensors(file, out);
    }

    Entry get(String name, int rank, boolean floats) {
        Entry e = entries.get(name);
        if (e == null || e.dims().length != rank || (floats ? e.floats() == null : e.ints() == null)) {
            throw new BadModelFileException(file, "tensor " + name, "a rank-" + rank + (floats ? " F32" : " I32") + " tensor",
                    e == null ? "absent" : "rank " + e.dims().length + (e.floats() != null ? " F32" : " I32"));
        }
        return e;
    }
}
