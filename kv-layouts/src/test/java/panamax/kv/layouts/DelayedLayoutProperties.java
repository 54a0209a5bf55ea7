package panamax.kv.layouts;

import static org.quicktheories.QuickTheory.qt;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.Backend;

/**
 * The {@code delayed} layout over full and rotating storage, with starts the sequences cross,
 * against the reference: rows are exact until their offset reaches start, then within the codec's bound.
 */
class DelayedLayoutProperties {
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = Plugins.backend();
    }

    @AfterAll
    static void stop() {
        backend.close();
    }

    static Gen<LayoutSetup> setups() {
        Gen<Map<String, String>> storage = Generate.frequency(List.of(
                org.quicktheories.api.Pair.of(1, Generate.constant(Map.of("storage", "full"))),
                org.quicktheories.api.Pair.of(1, Generate.pick(List.of(3, 5, 8)).zip(Generate.range(0, 1),
                        (w, k) -> Map.of("storage", "rotating", "window", "" + w, "keep", "" + k)))));
        return storage.zip(Generate.pick(List.of(0, 3, 6, 10)),
                Sequences.codecs(CodecChoice.AFFINE_8, CodecChoice.AFFINE_4, CodecChoice.TURBO_4_3),
                Generate.range(1, 3),
                (params, start, codec, rows) -> {
                    var all = new java.util.HashMap<>(params);
                    all.put("start", "" + start);
                    return new LayoutSetup("delayed", all, codec, rows);
                });
    }

    @Test
    void everyOperationSequenceKeepsTheDelayedLayoutEqualToTheReference() {
        qt().withExamples(500).forAll(setups(), Sequences.sequences()).checkAssert((setup, ops) ->
                new LayoutHarness(backend, setup, ops.hashCode()).runAndClose(ops));
    }
}
