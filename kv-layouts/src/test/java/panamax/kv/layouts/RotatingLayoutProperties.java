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

/** The {@code rotating} layout (windows 3, 5, 8; keep 0 to 2) against the reference under generated sequences. */
class RotatingLayoutProperties {
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
        return Generate.pick(List.of(3, 5, 8)).zip(Generate.range(0, 2),
                        Sequences.codecs(CodecChoice.IDENTITY, CodecChoice.AFFINE_8, CodecChoice.AFFINE_4, CodecChoice.TURBO_4_3),
                        Generate.range(1, 3),
                        (window, keep, codec, rows) -> new LayoutSetup("rotating",
                                Map.of("window", "" + window, "keep", "" + keep), codec, rows));
    }

    @Test
    void everyOperationSequenceKeepsTheRotatingLayoutEqualToTheReference() {
        qt().withExamples(500).forAll(setups(), Sequences.sequences()).checkAssert((setup, ops) ->
                new LayoutHarness(backend, setup, ops.hashCode()).runAndClose(ops));
    }
}
