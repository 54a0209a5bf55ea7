package panamax.models.decoder;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.error.BadModelFileException;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;
import panamax.models.safetensors.WeightFiles;

/**
 * Loads a dense decoder's tensors by Hugging Face name from mapped weight files, checking each
 * against the shape config.json implies, and MLX-quantized modules ({@code .weight} packed U32 with
 * {@code .scales} and {@code .biases}) as {@link QuantizedMatrix}. Not thread-safe; lives for one load.
 */
final class WeightLoader {
    private static final DType[] FLOATS = {DType.BF16, DType.F16, DType.F32};

    private final WeightFiles files;
    private final Backend backend;
    private final Optional<QuantizationConfig> quantization;

    WeightLoader(WeightFiles files, Backend backend, Optional<QuantizationConfig> quantization) {
        this.files = files;
        this.backend = backend;
        this.quantization = quantization;
    }

    boolean has(String name) {
        return files.has(name);
    }

    /** A float vector {@code [n]} as stored. */
    Tensor vector(String name, int n) {
        return files.load(name, backend, new int[]{n}, FLOATS);
    }

    /** A norm weight; with {@code plusOne}, {@code 1 + w} in f32 (Gemma's convention). */
    Tensor norm(String name, int n, boolean plusOne) {
        Tensor w = vector(name, n);
        if (!plusOne) return w;
        var ops = backend.ops();
        try (w; Tensor f = ops.astype(w, DType.F32)) {
            return ops.add(f, 1.0);
        }
    }

    /** The projection {@code module} ({@code module.weight [out, in]}, optional {@code module.bias [out]}). */
    Linear linear(String module, int out, int in, boolean bias) {
        Tensor b = bias ? vector(module + ".bias", out) : null;
        try {
            Optional<QuantizedMatrix> q = quantized(module, out, in);
            return q.isPresent() ? Linear.quantized(q.get(), b) : Linear.dense(files.load(module + ".weight", backend, new int[]{out, in}, FLOATS), b);
        } catch (RuntimeException e) {
            if (b != null) b.close();
            throw e;
        }
    }

    /** The backend's ops, for loaders that derive a weight (borrowed). */
    panamax.api.tensor.Ops ops() {
        return backend.ops();
    }

    /** A float matrix {@code name [out, in]} as stored (never quantized). */
    Tensor matrix(String name, int out, int in) {
        return files.load(name, backend, new int[]{out, in}, FLOATS);
    }

    /** The embedding table {@code module.weight [vocab, hidden]}, dense or quantized. */
    Embedding embedding(String module, int vocab, int hidden) {
        Optional<QuantizedMatrix> q = quantized(module, vocab, hidden);
        return q.isPresent() ? new Embedding(null, q.get()) : new Embedding(files.load(module + ".weight", backend, new int[]{vocab, hidden}, FLOATS), null);
    }

    /**
     * mlx-lm's stacked experts {@code module.weight [experts, out, in]} (floats, or packed U32 with
     * scales and biases), as one {@link Linear} per expert viewing its slice (nothing is copied).
     * The stacked tensors are added to {@code owned}: the caller closes them after the experts.
     */
    List<Linear> stacked(String module, int experts, int out, int in, List<AutoCloseable> owned) {
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
