package panamax.bench.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import panamax.api.tensor.Backend;
import panamax.api.tensor.DType;
import panamax.api.tensor.QuantizedMatrix;
import panamax.api.tensor.Shape;
import panamax.api.tensor.Tensor;

/**
 * Writes a Hugging Face Llama (or, for a mixture-of-experts shape, Qwen3-MoE) directory with random weights — {@code config.json} and one
 * {@code model.safetensors} — the way a downloaded checkpoint looks: bf16 weights uniform with
 * standard deviation 0.02, norms of ones, or MLX affine weights (packed U32 codes, bf16 scales and
 * biases, a {@code quantization} entry in config.json) produced by {@code backend.ops().quantize}.
 * Tensors are generated and written in blocks of rows, so the heap holds a few MiB at a time.
 */
final class RandomCheckpoint {
    /** Rows generated, quantized and written at a time. */
    private static final int BLOCK_ROWS = 512;
    /** Half-width of a uniform distribution with standard deviation 0.02 (σ·√3). */
    private static final float HALF_WIDTH = (float) (0.02 * Math.sqrt(3));
    private static final short BF16_ONE = (short) (Float.floatToRawIntBits(1f) >>> 16);

    private RandomCheckpoint() {
    }

    /** One weight matrix [out, in], stack of them [stack, out, in] (mlx-lm's experts), or norm vector [out] (in = 0), by module name. */
    private record Weight(String module, int out, int in, int stack, float scale) {
        Weight(String module, int out, int in) {
            this(module, out, in, 0, 1f);
        }

        Weight(String module, int out, int in, int stack) {
            this(module, out, in, stack, 1f);
        }

        Weight scaled(float by) {
            return new Weight(module, out, in, stack, scale * by);
        }

        boolean norm() {
            return in == 0;
        }

        /** Rows generated: every matrix of the stack, one after another. */
        int rows() {
            return Math.max(stack, 1) * out;
        }

        long[] shape(long cols) {
            return stack == 0 ? new long[] {out, cols} : new long[] {stack, out, cols};
        }
    }

    /**
     * Writes the checkpoint into {@code dir} (which must exist and be empty of these files).
     *
     * @param backend quantizes the weights when {@code format} is quantized
     * @return the bytes of the written tensors
     */
    static long write(Path dir, ModelShape s, WeightFormat format, long seed, Backend backend) throws IOException {
        return write(dir, s, format, seed, backend, s.layers(), 1f);
    }

    /**
     * As {@link #write(Path, ModelShape, WeightFormat, long, Backend)}, with the residual outputs
     * ({@code o_proj}, {@code down_proj}) of layers {@code scaledFrom} and later multiplied by
     * {@code scale}: the smaller it is, the less those layers move the first layers' prediction, so a
     * draft made of the first {@code scaledFrom} layers agrees with the whole model more often.
     */
    static long write(Path dir, ModelShape s, WeightFormat format, long seed, Backend backend, int scaledFrom, float scale) throws IOException {
        writeConfig(dir.resolve("config.json"), s, format);
        List<Weight> weights = weights(s, format).stream().map(w -> residualOutputOfLayerFrom(w, scaledFrom) ? w.scaled(scale) : w).toList();
        List<SafetensorsWriter.Entry> entries = new ArrayList<>();
        long total = 0;
        for (Weight w : weights) {
            if (w.norm()) {
                entries.add(new SafetensorsWriter.Entry(w.module(), "BF16", new long[] {w.out()}, 2L * w.out()));
            } else if (!format.quantized()) {
                entries.add(new SafetensorsWriter.Entry(w.module() + ".weight", "BF16", w.shape(w.in()), 2L * w.rows() * w.in()));
            } else {
                long packedCols = (long) w.in() * format.bits / 32;
                long groups = w.in() / WeightFormat.GROUP_SIZE;
                entries.add(new SafetensorsWriter.Entry(w.module() + ".weight", "U32", w.shape(packedCols), 4L * w.rows() * packedCols));
                entries.add(new SafetensorsWriter.Entry(w.module() + ".scales", "BF16", w.shape(groups), 2L * w.rows() * groups));
                entries.add(new SafetensorsWriter.Entry(w.module() + ".biases", "BF16", w.shape(groups), 2L * w.rows() * groups));
            }
        }
        for (SafetensorsWriter.Entry e : entries) total += e.bytes();
        try (SafetensorsWriter out = new SafetensorsWriter(dir.resolve("model.safetensors"), entries);
             // shared, not confined: segment accesses of a confined arena anywhere in the JVM make C2
             // compile the backend's kernels with an owner-thread check (q8 rows ~10 % slower)
             Arena arena = Arena.ofShared()) {
            long maxBlock = 0;
            for (Weight w : weights) maxBlock = Math.max(maxBlock, 2L * Math.min(BLOCK_ROWS, w.rows()) * Math.max(w.in(), 1));
            MemorySegment block = arena.allocate(maxBlock, 64);
            ByteBuffer scratch = ByteBuffer.allocateDirect((int) Math.max(maxBlock * 2, 1 << 16)).order(ByteOrder.LITTLE_ENDIAN);
            long state = seed;
            for (Weight w : weights) {
                state = mix(state + w.module().hashCode());
                if (w.norm()) {
                    scratch.clear();
                    for (int i = 0; i < w.out(); i++) scratch.putShort(BF16_ONE);
                    out.write(scratch.flip());
                    continue;
                }
                List<ByteBuffer> pending = format.quantized() ? new ArrayList<>() : null;
                for (int row = 0; row < w.rows(); row += BLOCK_ROWS) {
                    int rows = Math.min(BLOCK_ROWS, w.rows() - row);
                    MemorySegment slice = block.asSlice(0, 2L * rows * w.in());
                    state = fillUniformBf16(slice, state, w.scale());
                    if (!format.quantized()) {
                        out.write(slice.asByteBuffer());
                    } else {
                        quantizeBlock(backend, slice, rows, w.in(), format, pending);
                    }
                }
                // The quantized tensors are laid out weight, scales, biases: write each in turn.
                if (pending != null) for (int part = 0; part < 3; part++) {
                    for (int i = part; i < pending.size(); i += 3) out.write(pending.get(i));
                }
            }
        }
        return total;
    }

    /**
     * Quantizes {@code rows × in} bf16 values and queues their packed codes, scales and biases
     * (three buffers per block, in that order). Codes of a whole matrix are held until its scales
     * may follow: at most {@code out·in·bits/8} bytes (16 MiB for a 32k×2048 8-bit head).
     */
    private static void quantizeBlock(Backend backend, MemorySegment bf16, int rows, int in, WeightFormat format, List<ByteBuffer> pending) {
        try (Tensor w = backend.fromSegment(bf16, Shape.of(rows, in), DType.BF16);
             QuantizedMatrix q = backend.ops().quantize(w, WeightFormat.GROUP_SIZE, format.bits)) {
            int[] packed = backend.toInts(q.packed());
            ByteBuffer codes = ByteBuffer.allocate(packed.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            codes.asIntBuffer().put(packed);
            pending.add(codes);
            pending.add(bf16Bytes(backend.toFloats(q.scales())));
            pending.add(bf16Bytes(backend.toFloats(q.biases())));
        }
    }

    /** The values (already bf16-exact: the scales take the weights' dtype) as little-endian bf16. */
    private static ByteBuffer bf16Bytes(float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) b.putShort((short) (Float.floatToRawIntBits(v) >>> 16));
        return b.flip();
    }

    /** Whether {@code w} writes into the residual stream ({@code o_proj}, any {@code down_proj}) in layer {@code from} or later. */
    private static boolean residualOutputOfLayerFrom(Weight w, int from) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("model\\.layers\\.(\\d+)\\..*(o_proj|down_proj)").matcher(w.module());
        return m.matches() && Integer.parseInt(m.group(1)) >= from;
    }

    /** Fills the segment with bf16 values uniform in ±0.02·√3·scale; returns the generator's next state. */
    private static long fillUniformBf16(MemorySegment seg, long state, float scale) {
        long n = seg.byteSize() / 2;
        float step = HALF_WIDTH * scale / 32768f;
        long i = 0;
        while (i < n) {
            state = mix(state);
            long r = state;
            for (int k = 0; k < 4 && i < n; k++, i++, r >>>= 16) {
                float v = ((int) (r & 0xFFFF) - 32768) * step;
                seg.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) (Float.floatToRawIntBits(v) >>> 16));
            }
        }
        return state;
    }

    /** SplitMix64's finalizer: a cheap, well-mixed step of the generator. */
    private static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Every tensor of the checkpoint, in file order, with an untied output head: a Llama's, or a
     * Qwen3-MoE's (q/k norms, a router and experts per layer: one tensor per expert and projection
     * as Hugging Face writes them for bf16, mlx-lm's stacked {@code switch_mlp} when quantized).
     */
    private static List<Weight> weights(ModelShape s, WeightFormat format) {
        List<Weight> w = new ArrayList<>();
        w.add(new Weight("model.embed_tokens", s.vocab(), s.hidden()));
        for (int i = 0; i < s.layers(); i++) {
            String p = "model.layers." + i + ".";
            w.add(new Weight(p + "input_layernorm.weight", s.hidden(), 0));
            w.add(new Weight(p + "self_attn.q_proj", s.qOut(), s.hidden()));
            w.add(new Weight(p + "self_attn.k_proj", s.kvOut(), s.hidden()));
            w.add(new Weight(p + "self_attn.v_proj", s.kvOut(), s.hidden()));
            w.add(new Weight(p + "self_attn.o_proj", s.hidden(), s.qOut()));
            if (s.moe()) {
                w.add(new Weight(p + "self_attn.q_norm.weight", s.headDim(), 0));
                w.add(new Weight(p + "self_attn.k_norm.weight", s.headDim(), 0));
            }
            w.add(new Weight(p + "post_attention_layernorm.weight", s.hidden(), 0));
            if (!s.moe()) {
                w.add(new Weight(p + "mlp.gate_proj", s.intermediate(), s.hidden()));
                w.add(new Weight(p + "mlp.up_proj", s.intermediate(), s.hidden()));
                w.add(new Weight(p + "mlp.down_proj", s.hidden(), s.intermediate()));
                continue;
            }
            w.add(new Weight(p + "mlp.gate", s.experts(), s.hidden()));
            if (format.quantized()) {
                w.add(new Weight(p + "mlp.switch_mlp.gate_proj", s.intermediate(), s.hidden(), s.experts()));
                w.add(new Weight(p + "mlp.switch_mlp.up_proj", s.intermediate(), s.hidden(), s.experts()));
                w.add(new Weight(p + "mlp.switch_mlp.down_proj", s.hidden(), s.intermediate(), s.experts()));
            } else {
                for (int e = 0; e < s.experts(); e++) {
                    String x = p + "mlp.experts." + e + ".";
                    w.add(new Weight(x + "gate_proj", s.intermediate(), s.hidden()));
                    w.add(new Weight(x + "up_proj", s.intermediate(), s.hidden()));
                    w.add(new Weight(x + "down_proj", s.hidden(), s.intermediate()));
                }
            }
        }
        w.add(new Weight("model.norm.weight", s.hidden(), 0));
        w.add(new Weight("lm_head", s.vocab(), s.hidden()));
        return w;
    }

    private static void writeConfig(Path file, ModelShape s, WeightFormat format) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ObjectNode c = json.createObjectNode();
        c.putArray("architectures").add(s.moe() ? "Qwen3MoeForCausalLM" : "LlamaForCausalLM");
        c.put("model_type", s.moe() ? "qwen3_moe" : "llama");
        if (s.moe()) {
            c.put("num_experts", s.experts());
            c.put("num_experts_per_tok", s.topK());
            c.put("moe_intermediate_size", s.intermediate());
            c.put("norm_topk_prob", true);
            c.put("decoder_sparse_step", 1);
            c.putArray("mlp_only_layers");
        }
        c.put("dtype", "bfloat16");
        c.put("hidden_size", s.hidden());
        c.put("intermediate_size", s.intermediate());
        c.put("num_hidden_layers", s.layers());
        c.put("num_attention_heads", s.heads());
        c.put("num_key_value_heads", s.kvHeads());
        c.put("head_dim", s.headDim());
        c.put("vocab_size", s.vocab());
        c.put("rms_norm_eps", 1e-5);
        c.put("rope_theta", 500000.0);
        c.put("max_position_embeddings", 131072);
        c.put("tie_word_embeddings", false);
        c.put("hidden_act", "silu");
        if (format.quantized()) {
            ObjectNode q = c.putObject("quantization");
            q.put("group_size", WeightFormat.GROUP_SIZE);
            q.put("bits", format.bits);
        }
        Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(c));
    }
}
