package panamax.models.parity;

import panamax.models.family.Gemma3Plugin;

/** The Gemma3 plugin through the model kit on {@code fixtures/gemma3-tiny}. */
class Gemma3ModelTckTest extends FixtureModelTck {
    Gemma3ModelTckTest() {
        super(new Gemma3Plugin(), "gemma3-tiny");
    }
}
