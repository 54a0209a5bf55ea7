package panamax.model.support.weights;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * The safetensors files of one model directory — {@code model.safetensors}, the shards listed in
 * {@code model.safetensors.index.json}, or every {@code *.safetensors} file — mapped into an arena
 * the caller owns, with tensors looked up by name. Tensors it creates wrap the mapping without
 * copying (when the backend can address it) and are owned by the caller; they must be closed
 * before the arena. Not thread-safe.
 */
public final class WeightFiles {
    /** The sharded checkpoints' index, written by Hugging Face's {@code save_pretrained}. */
    public static final String INDEX = "model.safetensors.index.json";

    private final Path directory;
    private final Arena arena;
    private final LoadOptions options;
    private final Map<String, MappedSafetensors> byTensor = new LinkedHashMap<>();
    private long total;
    /** Where every file of this checkpoint goes (AUTO resolved against the total size), chosen at the first file. */
    private LoadOptions.Weights placement;
    private long done;

    private WeightFiles(Path directory, Arena arena, LoadOptions options) {
        this.directory = directory;
        this.arena = arena;
        this.options = options;
    }

    /**
     * Maps the weights of {@code directory} into {@code arena} (borrowed, owned by the model).
     *
     * @throws BadModelFileException naming the file when there are no weights, the index is malformed,
     *                               a shard is missing or malformed, or two files hold one tensor
     */
    public static WeightFiles open(Path directory, Arena arena) {
        return open(directory, arena, LoadOptions.defaults());
    }

    /**
     * Opens the weights of {@code directory} into {@code arena} (borrowed, owned by the model),
     * mapped or copied as {@code options} says, telling its listener the bytes of each file as they
     * are read or copied (see {@link MappedSafetensors#open}); with {@link LoadOptions.Progress#NONE}
     * and mapped weights nothing is read before first use.
     *
     * @throws BadModelFileException naming the file when there are no weights, the index is malformed,
     *                               a shard is missing or malformed, or two files hold one tensor
     */
    public static WeightFiles open(Path directory, Arena arena, LoadOptions options) {
        WeightFiles files = new WeightFiles(directory, arena, options);
        Path index = directory.resolve(INDEX);
        if (Files.isRegularFile(index)) {
            files.openSharded(index);
        } else {
            List<Path> all = safetensorsIn(directory);
            if (all.isEmpty()) {
                throw new BadModelFileException(directory.resolve("model.safetensors"), "file",
                        "model.safetensors, " + INDEX + " or another *.safetensors file in the model directory", "none");
            }
            files.total = sizeOf(all);
            files.started();
            for (Path p : all) files.add(files.openFile(p));
        }
        return files;
    }

    /** Tells the listener that reading begins (0 of the total), so that its clock starts with the reads. */
    private void started() {
        if (options.progress() != LoadOptions.Progress.NONE) options.progress().loaded("", 0, total);
    }

    private MappedSafetensors openFile(Path p) {
        boolean reporting = options.progress() != LoadOptions.Progress.NONE;
        String name = p.getFileName().toString();
        // AUTO is decided once for the whole checkpoint (all shards together must fit), not per file
        if (placement == null) placement = WeightPlacement.resolve(options.weights(), total);
        return MappedSafetensors.open(p, arena, placement, !reporting ? null : bytes -> {
            done += bytes;
            options.progress().loaded(name, done, total);
        });
    }

    private static long sizeOf(java.util.Collection<Path> paths) {
        long sum = 0;
        for (Path p : paths) {
            try {
                sum += Files.size(p);
            } catch (IOException e) {
                throw new BadModelFileException(p, "cannot read its size", e);
            }
        }
        return sum;
    }

    /**
     * Where {@link #open(Path, Arena, LoadOptions)} would place the weights of {@code directory} when
     * asked for {@code requested}: {@link LoadOptions.Weights#AUTO} resolved, on this machine now,
     * against the size of the directory's safetensors files (as stored); MAP or COPY as given.
     */
    public static LoadOptions.Weights placement(Path directory, LoadOptions.Weights requested) {
        return WeightPlacement.resolve(requested, storedBytes(directory));
    }

    /** Total bytes of the safetensors files of {@code directory} (weights as stored), or 0 when there are none. */
    public static long storedBytes(Path directory) {
        return sizeOf(safetensorsIn(directory));
    }

    private static List<Path> safetensorsIn(Path directory) {
        TreeSet<Path> out = new TreeSet<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(directory, "*.safetensors")) {
            for (Path p : s) {
                // reference.safetensors holds test logits, not weights
                if (Files.isRegularFile(p) && !p.getFileName().toString().equals("reference.safetensors")) out.add(p);
            }
        } catch (IOException e) {
            throw new BadModelFileException(directory, "cannot list the model directory", e);
        }
        return new ArrayList<>(out);
    }

    private void openSharded(Path index) {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(index.toFile());
        } catch (JacksonException e) {
            throw new BadModelFileException(index, "JSON", "a JSON object", e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadModelFileException(index, "cannot read it", e);
        }
        JsonNode map = root == null ? null : root.get("weight_map");
        if (map == null || !map.isObject()) {
            throw new BadModelFileException(index, "field weight_map", "an object of tensor name to shard file", map == null ? "no such field" : map.toString());
        }
        Map<String, MappedSafetensors> shards = new HashMap<>();
        Map<String, String> wanted = new LinkedHashMap<>();
        map.fields().forEachRemaining(e -> {
            if (!e.getValue().isTextual()) {
                throw new BadModelFileException(index, "weight_map." + e.getKey(), "a shard file name", e.getValue().toString());
            }
            wanted.put(e.getKey(), e.getValue().asText());
        });
        Map<String, Path> shardPaths = new LinkedHashMap<>();
        for (var e : wanted.entrySet()) {
            Path p = directory.resolve(e.getValue()).normalize();
            if (!p.startsWith(directory.normalize()) || !Files.isRegularFile(p)) {
                throw new BadModelFileException(index, "weight_map." + e.getKey(), "a shard file inside " + directory,
                        e.getValue() + (Files.exists(p) ? "" : " (no such file)"));
            }
            shardPaths.putIfAbsent(e.getValue(), p);
        }
        total = sizeOf(shardPaths.values());
        started();
        for (var e : wanted.entrySet()) {
            MappedSafetensors shard = shards.get(e.getValue());
            if (shard == null) {
                shard = openFile(shardPaths.get(e.getValue()));
                shards.put(e.getValue(), shard);
                add(shard);
            }
            if (!shard.header().tensors().containsKey(e.getKey())) {
                throw new BadModelFileException(shard.file(), "tensor " + e.getKey(), "present, as " + INDEX + " says", "absent");
            }
        }
    }

    private void add(MappedSafetensors file) {
        for (String name : file.header().tensors().keySet()) {
            MappedSafetensors other = byTensor.putIfAbsent(name, file);
            if (other != null) {
                throw new BadModelFileException(file.file(), "tensor " + name, "in one file only", "also in " + other.file());
            }
        }
    }

    /** The directory the weights were read from. */
    public Path directory() {
        return directory;
    }

    /** Whether a tensor of that name exists. */
    public boolean has(String name) {
        return byTensor.containsKey(name);
    }

    /** The header entry of {@code name}, or empty. */
    public Optional<TensorEntry> entry(String name) {
        MappedSafetensors f = byTensor.get(name);
        return f == null ? Optional.empty() : Optional.of(f.header().tensors().get(name));
    }

    /** Every tensor name. */
    public java.util.Set<String> names() {
        return java.util.Collections.unmodifiableSet(byTensor.keySet());
    }

    /** The file holding {@code name}, or the first weights file (for messages about a missing tensor). */
    public Path fileOf(String name) {
        MappedSafetensors f = byTensor.get(name);
        if (f != null) return f.file();
        return byTensor.values().stream().findFirst().map(MappedSafetensors::file).orElse(directory);
    }

    /**
     * The tensor {@code name} on {@code backend}, checked against an expected shape and a set of
     * accepted dtypes. Owned by the caller.
     *
     * @param shape expected dims; a negative entry accepts any size
     * @throws BadModelFileException naming the file and tensor when it is missing or does not match
     */
    public Tensor load(String name, Backend backend, int[] shape, DType... accepted) {
        MappedSafetensors f = byTensor.get(name);
        if (f == null) {
            throw new BadModelFileException(fileOf(name), "tensor " + name, "present (the config implies it)", "absent");
        }
        TensorEntry e = f.header().tensors().get(name);
        if (!java.util.Arrays.asList(accepted).contains(e.dtype())) {
            throw new BadModelFileException(f.file(), "tensor " + name + " dtype", "one of " + java.util.Arrays.toString(accepted), e.dtype().toString());
        }
        int[] dims = e.shape().dims();
        boolean matches = dims.length == shape.length;
        for (int i = 0; matches && i < dims.length; i++) matches = shape[i] < 0 || shape[i] == dims[i];
        if (!matches) {
            throw new BadModelFileException(f.file(), "tensor " + name + " shape", shapeText(shape) + " (from config.json)", java.util.Arrays.toString(dims));
        }
        MemorySegment data = f.data(e);
        if (data.address() % e.dtype().byteSize() != 0) {
            // A header whose length is not a multiple of 8 misaligns the data; copy once into the model's arena.
            MemorySegment aligned = arena.allocate(data.byteSize(), 8);
            aligned.copyFrom(data);
            data = aligned;
        }
        return backend.fromSegment(data, Shape.of(dims), e.dtype());
    }

    private static String shapeText(int[] shape) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < shape.length; i++) sb.append(i == 0 ? "" : ", ").append(shape[i] < 0 ? "*" : Integer.toString(shape[i]));
        return sb.append(']').toString();
    }
}
