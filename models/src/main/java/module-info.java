/**
 * The built-in model plugins (the dense decoder families, their mixture-of-experts variants and
 * Gemma 3n), read through panamax.model.support; Hugging Face tokenizers and chat templates.
 * Everything it offers is a service; the template package is open to Jinjava alone, which calls the
 * Python-like functions it registers reflectively.
 */
module panamax.models {
    requires panamax.api;
    requires panamax.model.support;
    requires com.fasterxml.jackson.databind;
    // tokenizers and chat templates: DJL's HF tokenizers binding and Jinjava (automatic modules);
    // java.desktop for java.beans, which Jinjava's EL resolvers expose
    requires ai.djl.tokenizers;
    requires jinjava;
    requires java.desktop;
    // Jinjava calls the chat templates' functions (raise_exception, ...) reflectively
    exports panamax.models.template to jinjava;

    provides panamax.api.model.ModelPlugin with
            panamax.models.family.LlamaPlugin,
            panamax.models.family.MistralPlugin,
            panamax.models.family.Qwen2Plugin,
            panamax.models.family.Qwen3Plugin,
            panamax.models.family.Gemma3Plugin,
            panamax.models.family.Gemma3nPlugin,
            panamax.models.family.Qwen3MoePlugin,
            panamax.models.family.Qwen2MoePlugin,
            panamax.models.family.MixtralPlugin;

    provides panamax.api.model.TokenizerProvider with panamax.models.tokenizer.HfTokenizerProvider;
}
