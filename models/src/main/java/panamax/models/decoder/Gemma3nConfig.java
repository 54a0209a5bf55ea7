package panamax.models.decoder;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import panamax.api.model.LoadOptions;
import panamax.api.tensor.DType;
import panamax.model.support.config.HfConfig;
import panamax.model.support.config.RopeReader;
import panamax.model.support.config.QuantizationConfig;

/**
 * Gemma 3n's text decoder as config.json describes it ({@code gemma3n_text}, or the {@code text_config}
 * of a {@code gemma3n} checkpoint): the dense decoder's dimensions plus AltUp streams, LAuReL rank,
 * per-layer input embeddings, per-layer MLP widths and activation sparsity, and cross-layer KV sharing.
 *
 * @param modelType          config.json's root {@code model_type}
 * @param hidden             hidden size
 * @param layers             decoder layers
 * @param heads              query heads
 * @param kvHeads            key/value heads
 * @param headDim            features per head
 * @param intermediate       per layer, the MLP's inner width
 * @param sparsity           per layer, the Gaussian top-k target sparsity of the MLP gate (0 = dense)
 * @param vocab              vocabulary size
 * @param normEps            RMSNorm epsilon
 * @param maxPositions       {@code max_position_embeddings}
 * @param finalSoftcap       logits become {@code cap·tanh(logits/cap)} when positive
 * @param attention          per layer, its window and rope
 * @param donors             per layer, the earlier layer whose keys and values it reads, or -1 when it computes its own
 * @param altupStreams       AltUp's parallel hidden streams ({@code altup_num_inputs})
 * @param altupActive        the stream the layer computes on ({@code altup_active_idx})
 * @param altupCorrectScale  the corrected active stream is scaled by {@code correct_output_scale} before the per-layer gate
 * @param altupCoefClip      AltUp's correction coefficients are clamped to ±this ({@code altup_coef_clip}), or 0 for none
 * @param laurelRank         rank of the LAuReL residual
 * @param perLayerHidden     width of each layer's input embedding ({@code hidden_size_per_layer_input})
 * @param perLayerVocab      ids below this have per-layer embeddings; others read id 0 ({@code vocab_size_per_layer_input})
 * @param embeddingScale     √hidden, in the buffers' precision
 * @param perLayerEmbeddingScale √perLayerHidden, in the buffers' precision
 * @param perLayerProjectionScale hidden^-½, in the buffers' precision
 * @param perLayerInputScale 2^-½, in the buffers' precision
 * @param routerInputScale   hidden^-1, in the buffers' precision
 * @param tiedEmbeddings     the output projection reuses the embedding
 * @param prefix             tensor name prefix of the text decoder ({@code model.}, or {@code model.language_model.} in a multimodal checkpoint)
 * @param ignoredTowers      towers of a multimodal checkpoint that are not run (e.g. {@code vision}, {@code audio})
 * @param quantization       MLX affine weight quantization, when the checkpoint is quantized
 */
public record Gemma3nConfig(String modelType, int hidden, int layers, int heads, int kvHeads, int headDim, int[] intermediate,
                            double[] sparsity, int vocab, double normEps, int maxPositions, double finalSoftcap,
                            List<LayerAttention> attention, int[] donors, int altupStreams, int altupActive, boolean altupCorrectScale,
                            double altupCoefClip,
                            int laurelRank, int perLayerHidden, int perLayerVocab, double embeddingScale, double perLayerEmbeddingScale,
                            double perLayerProjectionScale, double perLayerInputScale, double routerInputScale, boolean tiedEmbeddings,
                            String prefix, List<String> ignoredTowers, Optional<QuantizationConfig> quantization) {
    private static final int MAX = 1 << 24;
    /** Gemma 3n's default layer pattern: every fifth layer attends fully. */
    private static final int DEFAULT_PATTERN = 5;

    public Gemma3nConfig {
        intermediate = intermediate.clone();
        sparsity = sparsity.clone();
        donors = donors.clone();
        attention = List.copyOf(attention);
        ignoredTowers = List.copyOf(ignoredTowers);
    }

    @Override
    public int[] intermediate() {
        return intermediate.clone();
    }

    @Override
    public double[] sparsity() {
        return sparsity.clone();
    }

    @Override
    public int[] donors() {
        return donors.clone();
    }

    /** The layer whose KV {@code layer} reads, or -1 when it computes its own. */
    public int donor(int layer) {
        return donors[layer];
    }

    /**
     * Reads {@code root} (a {@code gemma3n_text} config, or a {@code gemma3n} one whose {@code text_config} holds the decoder).
     *
     * @throws panamax.api.error.BadModelFileException naming config.json and the field that is missing or out of range
     */
    public static Gemma3nConfig read(HfConfig root, LoadOptions.BufferPrecision buffers) {
        String modelType = root.string("model_type").orElseThrow(() -> root.bad("model_type", "a string", "no such field"));
        boolean multimodal = modelType.equals("gemma3n");
        HfConfig c = multimodal ? root.child("text_config").orElseThrow(() -> root.bad("text_config", "the text decoder's config", "no such field")) : root;
        List<String> towers = new ArrayList<>();
        if (multimodal) {
            for (String tower : List.of("vision", "audio")) if (root.has(tower + "_config")) towers.add(tower);
        }
        int hidden = c.requireInt("hidden_size", 1, MAX);
        int layers = c.requireInt("num_hidden_layers", 1, 4096);
        int heads = c.requireInt("num_attention_heads", 1, 4096);
        int kvHeads = c.intOr("num_key_value_heads", heads, 1, heads);
        if (heads % kvHeads != 0) throw c.bad("num_key_value_heads", "a divisor of num_attention_heads " + heads, kvHeads);
        int headDim = c.intOr("head_dim", 256, 2, 4096);
        if (headDim % 2 != 0) throw c.bad("head_dim", "an even number (RoPE rotates pairs)", headDim);
        int[] intermediate = perLayerInts(c, "intermediate_size", layers);
        double[] sparsity = sparsity(c, layers);
        int vocab = c.intOr("vocab_size", 262_400, 1, MAX);
        double eps = c.doubleOr("rms_norm_eps", 1e-6);
        if (!(eps > 0)) throw c.bad("rms_norm_eps", "a positive number", eps);
        int maxPositions = c.intOr("max_position_embeddings", 32_768, 1, Integer.MAX_VALUE);
        if (c.has("attn_logit_softcapping")) {
            throw c.bad("attn_logit_softcapping", "null (attention logit soft-capping is not supported)", c.node("attn_logit_softcapping").get());
        }
        double softcap = c.doubleOr("final_logit_softcapping", 30.0);
        if (softcap < 0) throw c.bad("final_logit_softcapping", "a positive number or null", softcap);
        if (c.boolOr("attention_bias", false)) throw c.bad("attention_bias", "false (Gemma 3n has no attention biases)", true);
        String activation = c.string("hidden_activation").orElse("gelu_pytorch_tanh");
        if (!activation.equals("gelu_pytorch_tanh")) throw c.bad("hidden_activation", "\"gelu_pytorch_tanh\"", "\"" + activation + "\"");

        List<String> types = layerTypes(c, layers);
        int window = types.contains("sliding_attention") ? c.intOr("sliding_window", 512, 1, Integer.MAX_VALUE) : 0;
        DType storedAs = buffers == LoadOptions.BufferPrecision.STORED_DTYPE ? storedDtype(c, root) : DType.F32;
        List<LayerAttention> attention = new ArrayList<>();
        for (String type : types) {
            var rope = RopeReader.read(c, type, headDim, true);
            attention.add(new LayerAttention(type.equals("sliding_attention") ? window : 0, RopeReader.roundedTo(rope, storedAs)));
        }
        int shared = c.intOr("num_kv_shared_layers", 0, 0, layers - 1);
        int[] donors = donors(c, types, shared);

        int streams = c.intOr("altup_num_inputs", 4, 1, 64);
        int active = c.intOr("altup_active_idx", 0, 0, streams - 1);
        double clip = c.doubleOr("altup_coef_clip", 0);
        if (clip < 0) throw c.bad("altup_coef_clip", "a positive number or null", clip);
        int perLayerHidden = c.requireInt("hidden_size_per_layer_input", 1, MAX);
        int perLayerVocab = c.intOr("vocab_size_per_layer_input", vocab, 1, MAX);
        return new Gemma3nConfig(modelType, hidden, layers, heads, kvHeads, headDim, intermediate, sparsity, vocab, eps, maxPositions,
                softcap, attention, donors, streams, active, c.boolOr("altup_correct_scale", true), clip, c.intOr("laurel_rank", 64, 1, MAX),
                perLayerHidden, perLayerVocab,
                RopeReader.round((float) Math.sqrt(hidden), storedAs), RopeReader.round((float) Math.sqrt(perLayerHidden), storedAs),
                RopeReader.round((float) Math.pow(hidden, -0.5), storedAs), RopeReader.round((float) (1 / Math.sqrt(2.0)), storedAs),
                RopeReader.round((float) (1.0 / hidden), storedAs),
                root.boolOr("tie_word_embeddings", c.boolOr("tie_word_embeddings", true)),
                multimodal ? "model.language_model." : "model.", towers, QuantizationConfig.read(root));
    }

    /**
     * Transformers' rule: the last {@code shared} layers read the keys and values of the last earlier
     * (non-shared) layer of the same attention type.
     */
    static int[] donors(HfConfig c, List<String> types, int shared) {
        int layers = types.size();
        int first = layers - shared;
        int[] donors = new int[layers];
        Arrays.fill(donors, -1);
        for (int i = first; i < layers && first > 0; i++) {
            for (int j = first - 1; j >= 0; j--) {
                if (types.get(j).equals(types.get(i))) {
                    donors[i] = j;
                    break;
                }
            }
            if (donors[i] < 0) {
                throw c.bad("num_kv_shared_layers", "a count that leaves a " + types.get(i) + " layer before layer " + first
                        + " to share with layer " + i, shared);
            }
        }
        return donors;
    }

    private static int[] perLayerInts(HfConfig c, String field, int layers) {
        JsonNode n = c.node(field).orElseThrow(() -> c.bad(field, "an integer or one per layer", "no such field"));
        int[] out = new int[layers];
        if (!n.isArray()) {
            Arrays.fill(out, c.requireInt(field, 1, MAX));
            return out;
        }
        if (n.size() != layers) throw c.bad(field, "an array of " + layers + " integers (one per layer)", n);
        for (int i = 0; i < layers; i++) {
            JsonNode v = n.get(i);
            if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 1 || v.intValue() > MAX) {
                throw c.bad(field + "[" + i + "]", "an integer in [1, " + MAX + "]", v);
            }
            out[i] = v.intValue();
        }
        return out;
    }

    /** {@code activation_sparsity_pattern}: one value in [0, 1) per layer; absent means the first 10 layers at 0.95 when there are more than 10. */
    private static double[] sparsity(HfConfig c, int layers) {
        double[] out = new double[layers];
        Optional<JsonNode> node = c.node("activation_sparsity_pattern");
        if (node.isEmpty()) {
            if (layers > 10) Arrays.fill(out, 0, 10, 0.95);
            return out;
        }
        JsonNode n = node.get();
        if (n.isNumber()) {
            Arrays.fill(out, n.doubleValue());
        } else {
            if (!n.isArray() || n.size() != layers) throw c.bad("activation_sparsity_pattern", "an array of " + layers + " numbers (one per layer)", n);
            for (int i = 0; i < layers; i++) {
                if (!n.get(i).isNumber()) throw c.bad("activation_sparsity_pattern[" + i + "]", "a number in [0, 1)", n.get(i));
                out[i] = n.get(i).doubleValue();
            }
        }
        for (int i = 0; i < layers; i++) {
            if (!(out[i] >= 0 && out[i] < 1)) throw c.bad("activation_sparsity_pattern[" + i + "]", "a number in [0, 1)", out[i]);
        }
        return out;
    }

    /** {@code layer_types}, else Gemma 3n's default: every fifth layer full, the others sliding. */
    private static List<String> layerTypes(HfConfig c, int layers) {
        List<String> types = new ArrayList<>();
        Optional<JsonNode> explicit = c.node("layer_types");
        if (explicit.isPresent()) {
            JsonNode n = explicit.get();
            if (!n.isArray() || n.size() != layers) throw c.bad("layer_types", "an array of " + layers + " layer types", n);
            for (int i = 0; i < layers; i++) {
                String t = n.get(i).isTextual() ? n.get(i).asText() : "";
                if (!t.equals("full_attention") && !t.equals("sliding_attention")) {
                    throw c.bad("layer_types[" + i + "]", "\"full_attention\" or \"sliding_attention\"", n.get(i));
                }
                types.add(t);
            }
            return types;
        }
        for (int i = 0; i < layers; i++) types.add((i + 1) % DEFAULT_PATTERN == 0 ? "full_attention" : "sliding_attention");
        return types;
    }

    private static DType storedDtype(HfConfig c, HfConfig root) {
        String name = c.string("dtype").or(() -> c.string("torch_dtype")).or(() -> root.string("dtype"))
                .or(() -> root.string("torch_dtype")).orElse("float32");
        return switch (name) {
            case "bfloat16" -> DType.BF16;
            case "float16" -> DType.F16;
            default -> DType.F32;
        };
    }
}
