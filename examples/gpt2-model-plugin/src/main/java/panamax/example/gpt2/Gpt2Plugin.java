package panamax.example.gpt2;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import panamax.api.error.BadModelFileException;
import panamax.api.model.AutoregressiveGraph;
import panamax.api.model.LayerKvNeed;
import panamax.api.model.ModelPlugin;
import panamax.api.model.ModelSpec;
import panamax.api.model.RuntimeModel;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;

/**
 * The GPT-2 family as a third-party model plugin: reads {@code model_type: gpt2} directories with
 * a single {@code model.safetensors}. Every layer attends fully. Stateless and thread-safe.
 */
public final class Gpt2Plugin implements ModelPlugin {
    @Override
    public String id() {
        return "gpt2";
    }

    @Override
    public Set<String> modelTypes() {
        return Set.of("gpt2");
    }

    @Override
    public ModelSpec describe(Path directory) {
        return spec(directory, Gpt2Config.read(directory));
    }

    private static ModelSpec spec(Path directory, Gpt2Config c) {
        List<LayerKvNeed> needs = new ArrayList<>();
        for (int i = 0; i < c.layers(); i++) needs.add(LayerKvNeed.full(i, c.heads(), c.headDim()));
        Path weights = directory.resolve("model.safetensors");
        long bytes;
        try {
            bytes = Files.isRegularFile(weights) ? Files.size(weights) : 0;
        } catch (IOException e) {
            throw new BadModelFileException(weights, "cannot read its size", e);
        }
        Path name = directory.toAbsolutePath().normalize().getFileName();
        return new ModelSpec(name == null ? "gpt2" : name.toString(), "gpt2", needs, DType.F32, bytes, c.vocab(), c.positions());
    }

    @Override
    public RuntimeModel load(Path directory, Backend backend) {
        Gpt2Config c = Gpt2Config.read(directory);
        ModelSpec spec = spec(directory, c);
        Path file = directory.resolve("model.safetensors");
        if (!Files.isRegularFile(file)) throw new BadModelFileException(file, "file", "the model's weights", "no such file");
        Arena arena = Arena.ofShared();
        try {
            Gpt2Weights weights = Gpt2Weights.load(c, SafetensorsFile.map(file, arena), backend);
            Gpt2Graph graph = new Gpt2Graph(c, weights, backend);
            return new RuntimeModel() {
                private boolean closed;

                @Override
                public ModelSpec spec() {
                    return spec;
                }

                @Override
                public AutoregressiveGraph graph() {
                    return graph;
                }

                @Override
                public synchronized void close() {
                    if (closed) return;
                    closed = true;
                    try {
                        weights.close();
                    } finally {
                        arena.close();
                    }
                }
            };
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }
}
