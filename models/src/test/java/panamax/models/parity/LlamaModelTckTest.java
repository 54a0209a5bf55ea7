package panamax.models.parity;

import panamax.models.family.LlamaPlugin;

/** The Llama plugin through the model kit on {@code fixtures/llama-tiny}. */
class LlamaModelTckTest extends FixtureModelTck {
    LlamaModelTckTest() {
        super(new LlamaPlugin(), "llama-tiny");
    }
}
