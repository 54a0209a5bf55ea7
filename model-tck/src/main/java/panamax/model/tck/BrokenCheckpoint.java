package panamax.model.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import panamax.model.support.weights.SafetensorsHeader;
import panamax.model.support.weights.SafetensorsWriter;
import panamax.model.support.weights.TensorEntry;
import panamax.model.support.weights.WeightFiles;

/**
 * Copies of a model directory with one tensor removed or reshaped, written as valid safetensors
 * (the header rewritten, the remaining data repacked), so that a loader meets exactly the mistake
 * a user's checkpoint may hold. The copies are plain files in a folder the caller owns. Stateless.
 */
public final class BrokenCheckpoint {
    private BrokenCheckpoint() {
    }

    /** Every weight tensor of {@code model} (all {@code *.safetensors} but {@code reference.safetensors}) with its dims, by name. */
    public static Map<String, int[]> tensors(Path model) {
        Map<String, int[]> out = new TreeMap<>();
        for (Path file : weightFiles(model)) header(file).tensors().forEach((name, e) -> out.put(name, e.shape().dims()));
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
        rewrite(holder, tensor, null, target.resolve(holder.getFileName()));
        Path index = model.resolve(WeightFiles.INDEX);
        if (Files.isRegularFile(index)) {
            try {
                ObjectMapper json = new ObjectMapper();
                JsonNode root = json.readTree(index.toFile());
                if (root.path("weight_map") instanceof ObjectNode map) map.remove(tensor);
                json.writeValue(target.resolve(WeightFiles.INDEX).toFile(), root);
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
        int[] old = header(holder).tensors().get(tensor).shape().dims();
        if (Arrays.stream(old).asLongStream().reduce(1, (a, b) -> a * b) != Arrays.stream(dims).asLongStream().reduce(1, (a, b) -> a * b)) {
            throw new IllegalArgumentException(tensor + ": " + Arrays.toString(dims) + " does not hold the " + Arrays.toString(old) + " elements");
        }
        copyAllBut(model, holder, target);
        rewrite(holder, tensor, dims, target.resolve(holder.getFileName()));
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
        for (Path file : weightFiles(model)) if (header(file).tensors().containsKey(tensor)) return file;
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

    private static SafetensorsHeader header(Path file) {
        try {
            return SafetensorsHeader.parse(file, MemorySegment.ofArray(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * Writes {@code source}'s tensors in data order to {@code target}, {@code tensor} left out when
     * {@code dims} is null and given those dims otherwise.
     */
    private static void rewrite(Path source, String tensor, int[] dims, Path target) {
        try {
            byte[] bytes = Files.readAllBytes(source);
            SafetensorsHeader header = SafetensorsHeader.parse(source, MemorySegment.ofArray(bytes));
            SafetensorsWriter out = new SafetensorsWriter();
            for (TensorEntry e : header.tensors().values().stream().sorted(Comparator.comparingLong(TensorEntry::begin)).toList()) {
                if (e.name().equals(tensor) && dims == null) continue;
                byte[] data = Arrays.copyOfRange(bytes, (int) (header.dataStart() + e.begin()), (int) (header.dataStart() + e.end()));
                out.add(e.name(), e.dtype(), e.name().equals(tensor) ? dims : e.shape().dims(), data);
            }
            out.write(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }
}
