package panamax.bench.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import panamax.api.error.BadModelFileException;

/**
 * The shape and weight format of a Llama-shaped model directory, read from its {@code config.json}
 * for {@code bench decode --model}: the floor is computed from them as for the random models.
 *
 * @param shape  the decoder's dimensions
 * @param format bf16 when unquantized, else the MLX affine bit width (2 to 8, group 64)
 */
record ModelConfigShape(ModelShape shape, WeightFormat format) {

    /** @throws BadModelFileException naming config.json and the field that is missing or unsupported */
    static ModelConfigShape read(Path dir) {
        Path file = dir.resolve("config.json");
        if (!Files.isRegularFile(file)) throw new BadModelFileException(file, "--model", "a model directory with config.json", "no config.json");
        JsonNode c;
        try {
            c = new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new BadModelFileException(file, "config.json", "a JSON object", e.getMessage());
        }
        int hidden = require(c, file, "hidden_size"), heads = require(c, file, "num_attention_heads");
        int kvHeads = c.path("num_key_value_heads").asInt(heads);
        int headDim = c.path("head_dim").asInt(hidden / heads);
        ModelShape shape;
        try {
            shape = moe(c, file, hidden, heads, kvHeads, headDim);
            if (shape == null) {
                shape = new ModelShape(require(c, file, "num_hidden_layers"), hidden, heads, kvHeads, headDim,
                        require(c, file, "intermediate_size"), require(c, file, "vocab_size"));
            }
        } catch (IllegalArgumentException e) {
            throw new BadModelFileException(file, "config.json", "a Llama-shaped decoder", e.getMessage());
        }
        JsonNode q = c.path("quantization");
        WeightFormat format = WeightFormat.BF16;
        if (!q.isMissingNode()) {
            int bits = q.path("bits").asInt(-1), group = q.path("group_size").asInt(-1);
            format = WeightFormat.ofBits(bits);
            if (format == null) {
                throw new BadModelFileException(file, "quantization.bits", "2, 3, 4, 5, 6 or 8 (what the benchmark's floor models)",
                        Integer.toString(bits));
            }
            if (group != WeightFormat.GROUP_SIZE) {
                throw new BadModelFileException(file, "quantization.group_size", Integer.toString(WeightFormat.GROUP_SIZE), Integer.toString(group));
            }
        }
        return new ModelConfigShape(shape, format);
    }

    /** A Qwen3-MoE or Mixtral shape (every layer sparse), or null when config.json has no experts. */
    private static ModelShape moe(JsonNode c, Path file, int hidden, int heads, int kvHeads, int headDim) {
        String expertsKey = c.has("num_experts") ? "num_experts" : "num_local_experts";
        if (!c.has(expertsKey)) return null;
        if (c.path("mlp_only_layers").size() > 0 || c.path("decoder_sparse_step").asInt(1) != 1) {
            throw new BadModelFileException(file, "mlp_only_layers / decoder_sparse_step", "every layer sparse (what the benchmark's floor models)",
                    c.path("mlp_only_layers") + " / " + c.path("decoder_sparse_step"));
        }
        String width = c.has("moe_intermediate_size") ? "moe_intermediate_size" : "intermediate_size";
        return new ModelShape(require(c, file, "num_hidden_layers"), hidden, heads, kvHeads, headDim, require(c, file, width),
                require(c, file, "vocab_size"), require(c, file, expertsKey), require(c, file, "num_experts_per_tok"));
    }

    private static int require(JsonNode c, Path file, String field) {
        JsonNode n = c.path(field);
        if (!n.canConvertToInt() || n.asInt() <= 0) throw new BadModelFileException(file, field, "a positive integer", n.toString());
        return n.asInt();
    }
}
