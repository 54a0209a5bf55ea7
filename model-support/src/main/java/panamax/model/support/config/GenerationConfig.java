package panamax.model.support.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * What a model directory says about generation: the end-of-sequence ids ({@code eos_token_id} of
 * {@code generation_config.json}, else of {@code config.json}) and sampling defaults when given.
 *
 * @param eosTokenIds  ids that end generation; may be empty
 * @param temperature  default temperature, when the file gives one
 * @param topK         default top-k, when given
 * @param topP         default top-p, when given
 */
public record GenerationConfig(int[] eosTokenIds, OptionalDouble temperature, OptionalInt topK, OptionalDouble topP) {
    public GenerationConfig {
        eosTokenIds = eosTokenIds.clone();
    }

    @Override
    public int[] eosTokenIds() {
        return eosTokenIds.clone();
    }

    /**
     * Reads {@code generation_config.json} and {@code config.json} of {@code directory}.
     *
     * @throws panamax.api.error.BadModelFileException naming the file and field that is malformed
     */
    public static GenerationConfig read(Path directory) {
        HfConfig config = HfConfig.read(directory.resolve("config.json"));
        Path genFile = directory.resolve("generation_config.json");
        HfConfig gen = Files.isRegularFile(genFile) ? HfConfig.read(genFile) : null;
        int[] eos = gen != null && gen.has("eos_token_id") ? gen.intOrInts("eos_token_id") : config.intOrInts("eos_token_id");
        if (gen == null) return new GenerationConfig(eos, OptionalDouble.empty(), OptionalInt.empty(), OptionalDouble.empty());
        return new GenerationConfig(eos,
                gen.has("temperature") ? OptionalDouble.of(gen.doubleOr("temperature", 1)) : OptionalDouble.empty(),
                gen.has("top_k") ? OptionalInt.of(gen.intOr("top_k", 0, 0, Integer.MAX_VALUE)) : OptionalInt.empty(),
                gen.has("top_p") ? OptionalDouble.of(gen.doubleOr("top_p", 1)) : OptionalDouble.empty());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GenerationConfig g && Arrays.equals(eosTokenIds, g.eosTokenIds) && temperature.equals(g.temperature)
                && topK.equals(g.topK) && topP.equals(g.topP);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(eosTokenIds) * 31 + temperature.hashCode();
    }

    @Override
    public String toString() {
        return "GenerationConfig[eos=" + Arrays.toString(eosTokenIds) + ", temperature=" + temperature + ", topK=" + topK + ", topP=" + topP + "]";
    }
}
