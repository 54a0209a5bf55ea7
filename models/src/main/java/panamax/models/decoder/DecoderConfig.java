package panamax.models.decoder;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import panamax.api.model.LoadOptions;
import panamax.api.tensor.DType;
import panamax.model.support.config.HfConfig;
import panamax.model.support.config.RopeReader;
import panamax.model.support.config.QuantizationConfig;

/**
 * A dense decoder's dimensions and per-layer attention, read from config.json for one family.
 *
 * @param family          the family's flags
 * @param modelType       config.json {@code model_type}
 * @param hidden          hidden size
 * @param layers          decoder layers
 * @param heads           query heads
 * @param kvHeads         key/value heads (a divisor of heads)
 * @param headDim         features per head (may differ from hidden/heads, as in Qwen3)
 * @param intermediate    MLP inner size
 * @param vocab           vocabulary size
 * @param normEps         RMSNorm epsilon
 * @param maxPositions    {@code max_position_embeddings}
 * @param tiedEmbeddings  the output projection reuses the embedding
 * @param qkvBias         q/k/v projections have biases
 * @param outputBias      the attention output projection has a bias
 * @param mlpBias         MLP projections have biases
 * @param attentionScale  scale of q·k
 * @param embeddingScale  factor applied to embeddings (Gemma: √hidden rounded to the checkpoint dtype, like HF's buffer; else 1)
 * @param finalSoftcap    logits become {@code cap·tanh(logits/cap)} when positive
 * @param attention       per layer, its window and rope
 * @param quantization    MLX affine weight quantization, when the checkpoint is quantized
 * @param experts         the sparse layers' experts, for a mixture-of-experts family
 */
public record DecoderConfig(DecoderFamily family, String modelType, int hidden, int layers, int heads, int kvHeads, int headDim,
                            int intermediate, int vocab, double normEps, int maxPositions, boolean tiedEmbeddings,
                            boolean qkvBias, boolean outputBias, boolean mlpBias, double attentionScale, double embeddingScale,
                            double finalSoftcap,
                            List<LayerAttention> attention, Optional<QuantizationConfig> quantization,
                            Optional<MoeConfig> experts) {
    private static final int MAX = 1 << 24;

    public DecoderConfig {
        attention = List.copyOf(attention);
    }

    /**
     * Reads {@code config} for {@code family}.
     *
     * @throws panamax.api.error.BadModelFileException naming config.json and the field that is missing or out of range
     */
    public static DecoderConfig read(HfConfig config, DecoderFamily family) {
        return read(config, family, LoadOptions.BufferPrecision.FLOAT32);
    }

    /**
     * Reads {@code config} for {@code family}, with derived constants (RoPE frequencies, Gemma's
     * embedding scale) in {@code buffers} precision.
     *
     * @throws panamax.api.error.BadModelFileException naming config.json and the field that is missing or out of range
     */
    public static DecoderConfig read(HfConfig config, DecoderFamily family, LoadOptions.BufferPrecision buffers) {
        String modelType = config.string("model_type").orElseThrow(() -> config.bad("model_type", "a string", "no such field"));
        int hidden = config.requireInt("hidden_size", 1, MAX);
        int layers = config.requireInt("num_hidden_layers", 1, 4096);
        int heads = config.requireInt("num_attention_heads", 1, 4096);
        int kvHeads = config.intOr("num_key_value_heads", heads, 1, heads);
        if (heads % kvHeads != 0) throw config.bad("num_key_value_heads", "a divisor of num_attention_heads " + heads, kvHeads);
        int headDim;
        if (config.has("head_dim")) {
            headDim = config.requireInt("head_dim", 2, 4096);
        } else {
            if (hidden % heads != 0) throw config.bad("hidden_size", "a multiple of num_attention_heads " + heads + " (or an explicit head_dim)", hidden);
            headDim = hidden / heads;
        }
        if (headDim % 2 != 0) throw config.bad("head_dim", "an even number (RoPE rotates pairs)", headDim);
        int intermediate = config.requireInt("intermediate_size", 1, MAX);
        int vocab = config.requireInt("vocab_size", 1, MAX);
        double eps = config.doubleOr("rms_norm_eps", 1e-6);
        if (!(eps > 0)) throw config.bad("rms_norm_eps", "a positive number", eps);
        int maxPositions = config.intOr("max_position_embeddings", 4096, 1, Integer.MAX_VALUE);
        boolean tied = config.boolOr("tie_word_embeddings", family.tiedDefault());
        // transformers names Qwen2-MoE's switch qkv_bias
        boolean qkvBias = config.boolOr("attention_bias", config.boolOr("qkv_bias", family.qkvBiasDefault()));
        boolean outputBias = !family.qkvBiasDefault() && config.boolOr("attention_bias", false);
        boolean mlpBias = config.boolOr("mlp_bias", false);
        if (config.has("attn_logit_softcapping")) {
            throw config.bad("attn_logit_softcapping", "null (attention logit soft-capping is not supported)", config.node("attn_logit_softcapping").get());
        }
        double softcap = config.doubleOr("final_logit_softcapping", 0);
        if (softcap < 0) throw config.bad("final_logit_softcapping", "a positive number or null", softcap);
        double scale;
        if (family.normPlusOne() && config.has("query_pre_attn_scalar")) {
            double s = config.requireDouble("query_pre_attn_scalar");
            if (!(s > 0)) throw config.bad("query_pre_attn_scalar", "a positive number", s);
            scale = 1.0 / Math.sqrt(s);
        } else {
            scale = 1.0 / Math.sqrt(headDim);
        }
        double partial = config.doubleOr("partial_rotary_factor", 1.0);
        int ropeDims = (int) Math.round(headDim * partial);
        if (!(partial > 0 && partial <= 1) || ropeDims % 2 != 0 || ropeDims == 0) {
            throw config.bad("partial_rotary_factor", "a fraction in (0, 1] giving an even number of rotated features", partial);
        }
        List<String> types = layerTypes(config, family, layers);
        int window = types.contains("sliding_attention") ? config.requireInt("sliding_window", 1, Integer.MAX_VALUE) : 0;
        DType storedAs = buffers == LoadOptions.BufferPrecision.STORED_DTYPE ? storedDtype(config) : DType.F32;
        List<LayerAttention> attention = new ArrayList<>();
        for (String type : types) {
            boolean sliding = type.equals("sliding_attention");
            var rope = RopeReader.read(config, type, ropeDims, family.sliding() == DecoderFamily.SlidingPolicy.PATTERN);
            attention.add(new LayerAttention(sliding ? window : 0, RopeReader.roundedTo(rope, storedAs)));
        }
        return new DecoderConfig(family, modelType, hidden, layers, heads, kvHeads, headDim, intermediate, vocab, eps, maxPositions,
                tied, qkvBias, outputBias, mlpBias, scale, family.scaledEmbedding() ? RopeReader.round((float) Math.sqrt(hidden), storedAs) : 1.0,
                softcap, attention, QuantizationConfig.read(config), family.experts().map(moe -> MoeConfig.read(config, moe, layers)));
    }

    /** The dtype config.json says the checkpoint is stored in ({@code dtype}, or the older {@code torch_dtype}); f32 when absent. */
    private static DType storedDtype(HfConfig config) {
        String name = config.string("dtype").or(() -> config.string("torch_dtype")).orElse("float32");
        return switch (name) {
            case "bfloat16" -> DType.BF16;
            case "float16" -> DType.F16;
            default -> DType.F32;
        };
    }

    /** Per layer, {@code full_attention} or {@code sliding_attention}: from {@code layer_types}, else the family's rule. */
    private static List<String> layerTypes(HfConfig config, DecoderFamily family, int layers) {
        Optional<JsonNode> explicit = config.node("layer_types");
        List<String> types = new ArrayList<>();
        if (explicit.isPresent()) {
            JsonNode n = explicit.get();
            if (!n.isArray() || n.size() != layers) throw config.bad("layer_types", "an array of " + layers + " layer types", n);
            for (int i = 0; i < layers; i++) {
                String t = n.get(i).isTextual() ? n.get(i).asText() : "";
                if (!t.equals("full_attention") && !t.equals("sliding_attention")) {
                    throw config.bad("layer_types[" + i + "]", "\"full_attention\" or \"sliding_attention\"", n.get(i));
                }
                types.add(t);
            }
            return types;
        }
        for (int i = 0; i < layers; i++) {
            boolean sliding = switch (family.sliding()) {
                case NONE -> false;
                case EVERY_LAYER -> config.has("sliding_window");
                case FROM_MAX_WINDOW_LAYERS -> config.boolOr("use_sliding_window", false)
                        && i >= config.intOr("max_window_layers", layers, 0, Integer.MAX_VALUE);
                case PATTERN -> {
                    int pattern = config.intOr("sliding_window_pattern", config.intOr("_sliding_window_pattern", 6, 1, 4096), 1, 4096);
                    yield (i + 1) % pattern != 0;
                }
            };
            types.add(sliding ? "sliding_attention" : "full_attention");
        }
        return types;
    }
}
