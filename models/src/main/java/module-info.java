/** Model plugins and Hugging Face loading (config, safetensors, tokenizer, chat template). Filled by the models issue. */
module panamax.models {
    requires panamax.api;
    requires com.fasterxml.jackson.databind;
    // tokenizers and chat templates: DJL's HF tokenizers binding and Jinjava (automatic modules);
    // java.desktop for java.beans, which Jinjava's EL resolvers expose
    requires ai.djl.tokenizers;
    requires jinjava;
    requires java.desktop;

    exports panamax.models.tokenizer;
    exports panamax.models.template;

    provides panamax.api.model.TokenizerProvider with panamax.models.tokenizer.HfTokenizerProvider;
}
