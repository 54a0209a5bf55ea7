package panamax.example.gpt2;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import panamax.api.error.BadModelFileException;

/**
 * GPT-2's config.json.
 *
 * @param hidden      {@code n_embd}
 * @param layers      {@code n_layer}
 * @param heads       {@code n_head}
 * @param inner       MLP inner size ({@code n_inner}, 4·hidden when null)
 * @param vocab       {@code vocab_size}
 * @param positions   {@code n_positions}, the learned position table's length
 * @param eps         {@code layer_norm_epsilon}
 */
record Gpt2Config(int hidden, int layers, int heads, int inner, int vocab, int positions, double eps) {

    int headDim() {
        return hidden / heads;
    }

    /**
     * Reads {@code directory/config.json}.
     *
     * @throws BadModelFileException naming the file and field that is missing or unsupported
     */
    static Gpt2Config read(Path directory) {
        Path file = directory.resolve("config.json");
        Map<?, ?> root;
        try {
            Object parsed = Json.parse(Files.readString(file, StandardCharsets.UTF_8));
            if (!(parsed instanceof Map<?, ?> m)) throw new BadModelFileException(file, "top level", "a JSON object", String.valueOf(parsed));
            root = m;
        } catch (IOException e) {
            throw new BadModelFileException(file, "cannot read it", e);
        } catch (IllegalArgumentException e) {
            throw new BadModelFileException(file, "JSON", "a JSON object", e.getMessage());
        }
        Object type = root.get("model_type");
        if (!"gpt2".equals(type)) throw new BadModelFileException(file, "field model_type", "\"gpt2\"", String.valueOf(type));
        int hidden = positive(file, root, "n_embd", null);
        int heads = positive(file, root, "n_head", null);
        if (hidden % heads != 0) throw new BadModelFileException(file, "field n_head", "a divisor of n_embd " + hidden, Integer.toString(heads));
        int layers = positive(file, root, "n_layer", null);
        int inner = positive(file, root, "n_inner", 4 * hidden);
        int vocab = positive(file, root, "vocab_size", null);
        int positions = positive(file, root, "n_positions", null);
        double eps = root.get("layer_norm_epsilon") instanceof Number n ? n.doubleValue() : 1e-5;
        Object act = root.containsKey("activation_function") ? root.get("activation_function") : "gelu_new";
        if (!"gelu_new".equals(act) && !"gelu_pytorch_tanh".equals(act)) {
            throw new BadModelFileException(file, "field activation_function", "gelu_new or gelu_pytorch_tanh", String.valueOf(act));
        }
        if (Boolean.TRUE.equals(root.get("scale_attn_by_inverse_layer_idx"))) {
            throw new BadModelFileException(file, "field scale_attn_by_inverse_layer_idx", "false (not supported)", "true");
        }
        if (Boolean.FALSE.equals(root.get("scale_attn_weights"))) {
            throw new BadModelFileException(file, "field scale_attn_weights", "true (not supported otherwise)", "false");
        }
        return new Gpt2Config(hidden, layers, heads, inner, vocab, positions, eps);
    }

    private static int positive(Path file, Map<?, ?> root, String field, Integer fallback) {
        Object v = root.get(field);
        if (v == null && fallback != null) return fallback;
        if (!(v instanceof Long l) || l <= 0 || l > Integer.MAX_VALUE) {
            throw new BadModelFileException(file, "field " + field, "a positive integer", v == null ? "no such field" : v.toString());
        }
        return (int) (long) l;
    }
}
