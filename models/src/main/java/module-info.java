/**
 * Model plugins and Hugging Face loading: config.json in both spellings, memory-mapped safetensors
 * (single, sharded, MLX-quantized), the dense decoder families; tokenizers and chat templates.
 */
module panamax.models {
    requires panamax.api;
    requires com.fasterxml.jackson.databind;
    // tokenizers and chat templates: DJL's HF tokenizers binding and Jinjava (automatic modules);
    // java.desktop for java.beans, which Jinjava's EL resolvers expose
    requires ai.djl.tokenizers;
    requires jinjava;
    requires java.desktop;

    exports panamax.models.hf;
    exports panamax.models.tokenizer;
    exports panamax.models.template;

    provides panamax.api.model.ModelPlugin with
            panamax.models.family.LlamaPlugin,
            panamax.models.family.MistralPlugin,
            panamax.models.family.Qwen2Plugin,
            panamax.models.family.Qwen3Plugin,
            panamax.models.family.Gemma3Plugin,
            panamax.models.family.Gemma3nPlugin,
            panamax.models.family.Qwen3MoePlugin,
            panamax.models.family.MixtralPlugin;

    provides panamax.api.model.TokenizerProvider with panamax.models.tokenizer.HfTokenizerProvider;
}
