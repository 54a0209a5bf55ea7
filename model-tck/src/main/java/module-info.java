/**
 * The model conformance suite (TCK): {@link panamax.model.tck.ModelTck}, an abstract JUnit 5 class
 * a model plugin's test extends with a Hugging Face model directory and its reference logits, and
 * {@link panamax.model.tck.ModelParity}, the same check as a call for suites that iterate many
 * models.
 */
module panamax.model.tck {
    requires transitive panamax.api;
    requires transitive panamax.engine;
    requires transitive panamax.model.support;
    requires transitive org.junit.jupiter.api;
    requires panamax.layout.tck;
    requires com.fasterxml.jackson.databind;

    exports panamax.model.tck;
    // JUnit invokes the inherited test methods reflectively
    opens panamax.model.tck;
}
