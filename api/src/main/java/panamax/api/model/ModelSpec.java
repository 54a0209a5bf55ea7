package panamax.api.model;

import java.util.List;
import panamax.api.tensor.DType;

/**
 * A model as the planner sees it, read from its config without loading weights.
 *
 * @param name            a display name (folder name or preset)
 * @param architecture    the HF {@code model_type}, e.g. {@code llama}
 * @param layers          per attention layer, what it needs from the KV cache
 * @param activationType  dtype of activations and identity KV
 * @param weightBytes     bytes of weights as stored
 * @param vocabSize       vocabulary size
 * @param maxPositions    the longest context the model was trained for
 * @param parameters      parameters in total and per token (since 0.4)
 */
public record ModelSpec(String name, String architecture, List<LayerKvNeed> layers, DType activationType,
                        long weightBytes, int vocabSize, int maxPositions, ParameterCount parameters) {
    public ModelSpec {
        layers = List.copyOf(layers);
        java.util.Objects.requireNonNull(parameters, "parameters");
    }

    /** A model whose parameters are not counted (every weight byte read each token). */
    public ModelSpec(String name, String architecture, List<LayerKvNeed> layers, DType activationType,
                     long weightBytes, int vocabSize, int maxPositions) {
        this(name, architecture, layers, activationType, weightBytes, vocabSize, maxPositions, ParameterCount.uncounted(weightBytes));
    }
}
