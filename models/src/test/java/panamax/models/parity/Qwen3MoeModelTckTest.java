package panamax.models.parity;

import panamax.models.family.Qwen3MoePlugin;

/** The Qwen3Moe plugin through the model kit on {@code fixtures/new-families/qwen3moe-tiny}. */
class Qwen3MoeModelTckTest extends FixtureModelTck {
    Qwen3MoeModelTckTest() {
        super(new Qwen3MoePlugin(), "new-families/qwen3moe-tiny");
    }
}
