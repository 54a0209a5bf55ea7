package panamax.engine.generate;

import java.util.List;

/**
 * The result of a {@link Generator#generate} call.
 *
 * @param results one per request, in request order
 * @param stats   measurements of the whole call
 */
public record GenerationOutput(List<GenerationResult> results, GenerationStats stats) {
    public GenerationOutput {
        results = List.copyOf(results);
    }
}
