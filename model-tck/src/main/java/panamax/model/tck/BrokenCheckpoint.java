package panamax.model.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Copies of a model directory with one tensor removed or reshaped, written as valid safetensors
 * (the header rewritten, the remaining data repacked), so that a loader meets exactly the mistake
 * a user's checkpoint may hold. The copies are plain files in a folder the caller owns. Stateless.
 */
public final class BrokenCheckpoint {
    /** The sharded checkpoints' index, written by Hugging Face's {@code save_pretrained}. */
    private static final String INDEX = "model.safetensors.index.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private BrokenCheckpoint() {
    }

    /** Every weight tensor of {@code model} (all {@code *.safetensors} but {@code reference.safetensors}) with its dims, by name. */
    public static Map<String, int[]> tensors(Path model) {
        Map<String, int[]> out = new TreeMap<>();
        for (Path file : weightFiles(model)) {
            header(file).properties().forEach(e -> {
                if (!e.getKey().equals("__metadata__")) out.put(e.getKey(), dims(e.getValue()));
            });
        }
        return out;
    }

    /**
     * A copy of {@code model} in {@code target} (created, must not hold files of the same names) in
     * which {@code tensor} does not exist: gone from its file's header and data, and from the index.
     *
     * @return {@code target}
     */
    public static Path withoutTensor(Path model, String tensor, Path target) {
        Path holder = holderOf(model, tensor);
        copyAllBut(model, holder, target);
        ObjectNode header = header(holder);
        header.remove(tensor);
        write(holder, header, target.resolve(holder.getFileName()));
        Path index = model.resolve(INDEX);
        if (Files.isRegularFile(index)) {
            try {
                JsonNode root = JSON.readTree(index.toFile());
                if (root.path("weight_map") instanceof ObjectNode map) map.remove(tensor);
                JSON.writeValue(target.resolve(INDEX).toFile(), root);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot rewrite " + index, e);
            }
        }
        return target;
    }

    /**
     * A copy of {@code model} in {@code target} in which {@code tensor} has the shape {@code dims}
     * over the same bytes.
     *
     * @throws IllegalArgumentException when {@code dims} holds another number of elements
     * @return {@code target}
     */
    public static Path withShape(Path model, String tensor, int[] dims, Path target) {
        Path holder = holderOf(model, tensor);
        ObjectNode header = header(holder);
        int[] old = dims(header.get(tensor));
        if (Arrays.stream(old).asLongStream().reduce(1, (a, b) -> a * b) != Arrays.stream(dims).asLongStream().reduce(1, (a, b) -> a * b)) {
            throw new IllegalArgumentException(tensor + ": " + Arrays.toString(dims) + " does not hold the " + Arrays.toString(old) + " elements");
        }
        copyAllBut(model, holder, target);
        ArrayNode shape = JSON.createArrayNode();
        for (int d : dims) shape.add(d);
        ((ObjectNode) header.get(tensor)).set("shape", shape);
        write(holder, header, target.resolve(holder.getFileName()));
        return target;
    }

    /**
     * Another shape of the same elements that a loader must reject: {@code [b, a]} for a matrix
     * {@code [a, b]} with {@code a ≠ b} (a transposed weight, the usual mistake), else the dims
     * behind a leading 1.
     */
    public static int[] wrongShape(int[] dims) {
        if (dims.length == 2 && dims[0] != dims[1]) return new int[]{dims[1], dims[0]};
        int[] out = new int[dims.length + 1];
        out[0] = 1;
        System.arraycopy(dims, 0, out, 1, dims.length);
        return out;
    }

    private static List<Path> weightFiles(Path model) {
        try (Stream<Path> s = Files.list(model)) {
            List<Path> files = s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".safetensors")
                    && !p.getFileName().toString().equals("reference.safetensors")).sorted().toList();
            if (files.isEmpty()) throw new IllegalArgumentException("no *.safetensors weights in " + model);
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + model, e);
        }
    }

    private static Path holderOf(Path model, String tensor) {
        for (Path file : weightFiles(model)) if (header(file).has(tensor)) return file;
        throw new IllegalArgumentException("no tensor " + tensor + " in the weights of " + model);
    }

    private static void copyAllBut(Path model, Path skipped, Path target) {
        try (Stream<Path> s = Files.list(model)) {
            Files.createDirectories(target);
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                if (!p.equals(skipped)) Files.copy(p, target.resolve(p.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + model + " to " + target, e);
        }
    }

    private static ObjectNode header(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            long n = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            if (n <= 0 || n > bytes.length - 8) throw new IllegalArgumentException(file + ": header length " + n + " is not inside the file");
            if (!(JSON.readTree(new String(bytes, 8, (int) n, StandardCharsets.UTF_8)) instanceof ObjectNode header)) {
                throw new IllegalArgumentException(file + ": the header is not a JSON object");
            }
            return header;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Writes {@code header}'s tensors with their data from {@code source}, repacked in offset order; offsets are rewritten. */
    private static void write(Path source, ObjectNode header, Path target) {
        try {
            byte[] bytes = Files.readAllBytes(source);
            long dataStart = 8 + ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
            List<Map.Entry<String, JsonNode>> entries = new ArrayList<>();
            header.properties().forEach(e -> {
                if (!e.getKey().equals("__metadata__")) entries.add(e);
            });
            entries.sort(Comparator.comparingLong(e -> e.getValue().get("data_offsets").get(0).asLong()));
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            for (var e : entries) {
                ArrayNode offsets = (ArrayNode) e.getValue().get("data_offsets");
                long begin = offsets.get(0).asLong(), end = offsets.get(1).asLong();
                long at = data.size();
                data.write(bytes, (int) (dataStart + begin), (int) (end - begin));
                offsets.removeAll().add(at).add(data.size());
            }
            byte[] json = JSON.writeValueAsBytes(header);
            int padded = (json.length + 7) / 8 * 8;
            ByteBuffer out = ByteBuffer.allocate(8 + padded + data.size()).order(ByteOrder.LITTLE_ENDIAN);
            out.putLong(padded).put(json);
            for (int i = json.length; i < padded; i++) out.put((byte) ' ');
            out.put(data.toByteArray());
            Files.write(target, out.array());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    private static int[] dims(JsonNode entry) {
        JsonNode shape = entry.path("shape");
        int[] out = new int[shape.size()];
        for (int i = 0; i < out.length; i++) out[i] = shape.get(i).asInt();
        return out;
    }
}
