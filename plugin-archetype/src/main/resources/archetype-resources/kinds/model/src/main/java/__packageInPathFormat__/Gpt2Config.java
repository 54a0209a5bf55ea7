package ${package};

import java.nio.file.Path;
import panamax.model.support.config.HfConfig;

/**
 * GPT-2's config.json.
 *
 * @param hidden    {@code n_embd}
 * @param layers    {@code n_layer}
 * @param heads     {@code n_head}
 * @param inner     MLP inner size ({@code n_inner}, 4·hidden when null)
 * @param vocab     {@code vocab_size}
 * @param positions {@code n_positions}, the learned position table's length
 * @param eps       {@code layer_norm_epsilon}
 */
record Gpt2Config(int hidden, int layers, int heads, int inner, int vocab, int positions, double eps) {

    int headDim() {
        return hidden / heads;
    }

    /**
     * Reads {@code directory/config.json}.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and field that is missing or unsupported
     */
    static Gpt2Config read(Path directory) {
        HfConfig c = HfConfig.read(directory.resolve("config.json"));
        String type = c.string("model_type").orElse("");
        if (!type.equals(Gpt2Plugin.MODEL_TYPE)) {
            throw c.bad("model_type", "\"" + Gpt2Plugin.MODEL_TYPE + "\"", type.isEmpty() ? "no such field" : "\"" + type + "\"");
        }
        int hidden = c.requireInt("n_embd", 1, 1 << 16);
        int heads = c.requireInt("n_head", 1, hidden);
        if (hidden % heads != 0) throw c.bad("n_head", "a divisor of n_embd " + hidden, heads);
        String act = c.string("activation_function").orElse("gelu_new");
        if (!act.equals("gelu_new") && !act.equals("gelu_pytorch_tanh")) {
            throw c.bad("activation_function", "gelu_new or gelu_pytorch_tanh", "\"" + act + "\"");
        }
        if (c.boolOr("scale_attn_by_inverse_layer_idx", false)) throw c.bad("scale_attn_by_inverse_layer_idx", "false (not supported)", true);
        if (!c.boolOr("scale_attn_weights", true)) throw c.bad("scale_attn_weights", "true (not supported otherwise)", false);
        return new Gpt2Config(hidden, c.requireInt("n_layer", 1, 1 << 10), heads, c.intOr("n_inner", 4 * hidden, 1, 1 << 20),
                c.requireInt("vocab_size", 1, 1 << 24), c.requireInt("n_positions", 1, 1 << 24), c.doubleOr("layer_norm_epsilon", 1e-5));
    }
}
