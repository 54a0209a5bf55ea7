package panamax.models.parity;

import panamax.models.family.Qwen3Plugin;

/** The Qwen3 plugin through the model kit on {@code fixtures/qwen3-tiny}. */
class Qwen3ModelTckTest extends FixtureModelTck {
    Qwen3ModelTckTest() {
        super(new Qwen3Plugin(), "qwen3-tiny");
    }
}
