package panamax.model.support.weights;

import java.lang.foreign.Arena;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.error.BadModelFileException;
import panamax.api.model.LoadOptions;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.Ops;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.model.support.blocks.Embedding;
import panamax.model.support.blocks.Linear;
import panamax.model.support.blocks.Norm;
import panamax.model.support.config.QuantizationConfig;

/**
 * A model's weights by Hugging Face name, on a backend: each tensor checked against the shape the
 * config implies (the error names the file, the tensor, the expected and the found dims), wrapping
 * the mapped file without a copy; MLX-quantized modules ({@code .weight} packed U32 with
 * {@code .scales} and {@code .biases}) come back as {@link QuantizedMatrix}-backed {@link Linear}s
 * and {@link Embedding}s. Every tensor it returns is owned by the caller and must be closed before
 * the arena the files are mapped into. Not thread-safe; lives for one load.
 *
 * {@snippet :
 * WeightSource w = WeightSource.open(directory, arena, backend, options, QuantizationConfig.read(config));
 * Linear q = w.linear("model.layers.0.self_attn.q_proj", heads * headDim, hidden, false);
 * Tensor norm = w.vector("model.norm.weight", hidden);
 * }
 */
public final class WeightSource {
    private static final DType[] FLOATS = {DType.BF16, DType.F16, DType.F32};

    private final WeightFiles files;
    private final Backend backend;
    private final Optional<QuantizationConfig> quantization;

    /**
     * @param files        the mapped checkpoint (borrowed)
     * @param backend      where tensors are created (borrowed)
     * @param quantization the checkpoint's MLX quantization, from config.json; empty when it is stored in floats
     */
    public WeightSource(WeightFiles files, Backend backend, Optional<QuantizationConfig> quantization) {
        this.files = files;
        this.backend = backend;
        this.quantization = quantization;
    }

    /**
     * Maps the safetensors of {@code directory} (one file, an index of shards, or every
     * {@code *.safetensors}) into {@code arena} (borrowed: the model's), placed as {@code options} says.
     *
     * @throws BadModelFileException naming the file when there are no weights or a file is malformed
     */
    public static WeightSource open(Path directory, Arena arena, Backend backend, LoadOptions options,
                                    Optional<QuantizationConfig> quantization) {
        return new WeightSource(WeightFiles.open(directory, arena, options), backend, quantization);
    }

    /** The mapped files, for names and header entries. */
    public WeightFiles files() {
        return files;
    }

    /** Whether the checkpoint holds a tensor of that name. */
    public boolean has(String name) {
        return files.has(name);
    }

    /**
     * The tensor {@code name} as stored, in whatever dtype.
     *
     * @param dims expected dims; a negative entry accepts any size
     * @throws BadModelFileException naming the file and tensor when it is missing or of another shape
     */
    public Tensor tensor(String name, int... dims) {
        return files.load(name, backend, dims, DType.values());
    }

    /** A float vector {@code [n]} as stored. */
    public Tensor vector(String name, int n) {
        return files.load(name, backend, new int[]{n}, FLOATS);
    }

    /** A norm weight; with {@code plusOne}, {@code 1 + w} in f32 (Gemma's convention). */
    public Tensor norm(String name, int n, boolean plusOne) {
        Tensor w = vector(name, n);
        if (!plusOne) return w;
        var ops = backend.ops();
        try (w; Tensor f = ops.astype(w, DType.F32)) {
            return ops.add(f, 1.0);
        }
    }

    /** The LayerNorm {@code module} ({@code module.weight [n]} and {@code module.bias [n]}). */
    public Norm layerNorm(String module, int n, double eps) {
        Tensor w = vector(module + ".weight", n);
        try {
            return Norm.layer(w, vector(module + ".bias", n), eps);
        } catch (RuntimeException e) {
            w.close();
            throw e;
        }
    }

    /** The projection {@code module} ({@code module.weight [out, in]}, optional {@code module.bias [out]}). */
    public Linear linear(String module, int out, int in, boolean bias) {
        Tensor b = bias ? vector(module + ".bias", out) : null;
        try {
            Optional<QuantizedMatrix> q = quantized(module, out, in);
            return q.isPresent() ? Linear.quantized(q.get(), b) : Linear.dense(files.load(module + ".weight", backend, new int[]{out, in}, FLOATS), b);
        } catch (RuntimeException e) {
            if (b != null) b.close();
            throw e;
        }
    }

    /**
     * The {@code Conv1D} module {@code module} (GPT-2's layout: {@code module.weight [in, out]},
     * optional {@code module.bias [out]}).
     */
    public Linear inputMajor(String module, int in, int out, boolean bias) {
        Tensor b = bias ? vector(module + ".bias", out) : null;
        try {
            return Linear.inputMajor(files.load(module + ".weight", backend, new int[]{in, out}, FLOATS), b);
        } catch (RuntimeException e) {
            if (b != null) b.close();
            throw e;
        }
    }

    /** The backend's ops, for loaders that derive a weight (borrowed). */
    public Ops ops() {
        return backend.ops();
    }

    /** A float matrix {@code name [out, in]} as stored (never quantized). */
    public Tensor matrix(String name, int out, int in) {
        return files.load(name, backend, new int[]{out, in}, FLOATS);
    }

    /** The embedding table {@code module.weight [vocab, hidden]}, dense or quantized. */
    public Embedding embedding(String module, int vocab, int hidden) {
        Optional<QuantizedMatrix> q = quantized(module, vocab, hidden);
        return q.isPresent() ? new Embedding(null, q.get()) : new Embedding(files.load(module + ".weight", backend, new int[]{vocab, hidden}, FLOATS), null);
    }

    /**
     * mlx-lm's stacked experts {@code module.weight [experts, out, in]} (floats, or packed U32 with
     * scales and biases), as one {@link Linear} per expert viewing its slice (nothing is copied).
     * The stacked tensors are added to {@code owned}: the caller closes them after the experts.
     */
    public List<Linear> stacked(String module, int experts, int out, int in, List<AutoCloseable> owned) {
        List<Linear> linears = new ArrayList<>();
        try {
            return stackedInto(module, experts, out, in, owned, linears);
        } catch (RuntimeException e) {
            linears.forEach(Linear::close);
            throw e;
        }
    }

    private List<Linear> stackedInto(String module, int experts, int out, int in, List<AutoCloseable> owned, List<Linear> linears) {
        Optional<QuantizedMatrix> q = quantized(module, new int[]{experts}, out, in);
        if (q.isPresent()) {
            QuantizedMatrix m = q.get();
            owned.add(m);
            for (int e = 0; e < experts; e++) {
                Tensor p = expert(m.packed(), e), s = expert(m.scales(), e), b = expert(m.biases(), e);
                linears.add(Linear.quantized(new QuantizedMatrix(p, s, b, m.groupSize(), m.bits()), null));
            }
        } else {
            Tensor w = files.load(module + ".weight", backend, new int[]{experts, out, in}, FLOATS);
            owned.add(w);
            for (int e = 0; e < experts; e++) linears.add(Linear.dense(expert(w, e), null));
        }
        return linears;
    }

    /** Expert {@code e}'s matrix of a stacked {@code [experts, rows, cols]} tensor, as a view. */
    private Tensor expert(Tensor stacked, int e) {
        var ops = backend.ops();
        try (Tensor slice = ops.slice(stacked, 0, e, e + 1)) {
            return ops.reshape(slice, Shape.of(stacked.dim(1), stacked.dim(2)));
        }
    }

    /** The module as a quantized matrix when its weight is packed U32 with scales; empty when stored in floats. */
    private Optional<QuantizedMatrix> quantized(String module, int out, int in) {
        return quantized(module, new int[0], out, in);
    }

    /** As {@link #quantized(String, int, int)} for a weight of shape {@code [lead..., out, in]}. */
    private Optional<QuantizedMatrix> quantized(String module, int[] lead, int out, int in) {
        String weight = module + ".weight";
        boolean packed = files.entry(weight).map(e -> e.dtype() == DType.U32).orElse(false);
        if (!packed) {
            if (files.has(module + ".scales")) {
                throw new BadModelFileException(files.fileOf(weight), "tensor " + weight + " dtype", "U32 (packed) since " + module + ".scales exists",
                        files.entry(weight).map(e -> e.dtype().toString()).orElse("absent"));
            }
            return Optional.empty();
        }
        QuantizationConfig.Setting setting = quantization.flatMap(qc -> qc.forModule(module)).orElseThrow(() ->
                new BadModelFileException(files.fileOf(weight), "tensor " + weight, "a float weight, since config.json does not quantize " + module,
                        "packed U32 (config.json needs a quantization entry)"));
        if (in % setting.groupSize() != 0 || (long) in * setting.bits() % 32 != 0) {
            throw new BadModelFileException(files.fileOf(weight), "tensor " + weight, "an input size divisible by group_size " + setting.groupSize(),
                    in + " inputs");
        }
        int words = (int) ((long) in * setting.bits() / 32);
        int groups = in / setting.groupSize();
        Tensor p = files.load(weight, backend, dims(lead, out, words), DType.U32);
        Tensor s = null;
        try {
            s = files.load(module + ".scales", backend, dims(lead, out, groups), FLOATS);
            Tensor b = files.load(module + ".biases", backend, dims(lead, out, groups), s.dtype());
            return Optional.of(new QuantizedMatrix(p, s, b, setting.groupSize(), setting.bits()));
        } catch (RuntimeException e) {
            p.close();
            if (s != null) s.close();
            throw e;
        }
    }

    private static int[] dims(int[] lead, int rows, int cols) {
        int[] d = java.util.Arrays.copyOf(lead, lead.length + 2);
        d[lead.length] = rows;
        d[lead.length + 1] = cols;
        return d;
    }
}
