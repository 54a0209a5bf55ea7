/** Model plugins and Hugging Face loading (config, safetensors, tokenizer, chat template). Filled by the models issue. */
module panamax.models {
    requires panamax.api;
}
