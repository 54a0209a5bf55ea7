/**
 * What model plugins share: a Hugging Face {@code config.json} as a typed tree
 * ({@link panamax.model.support.config}), safetensors weights mapped and looked up by name
 * ({@link panamax.model.support.weights}), and the common decoder blocks
 * ({@link panamax.model.support.blocks}). A third-party model plugin {@code requires} it.
 */
module panamax.model.support {
    requires transitive panamax.api;
    // HfConfig hands out the tree of config.json as Jackson nodes
    requires transitive com.fasterxml.jackson.databind;

    exports panamax.model.support;
    exports panamax.model.support.config;
    exports panamax.model.support.weights;
    exports panamax.model.support.blocks;
}
