package panamax.kv.layouts;

import static org.quicktheories.QuickTheory.qt;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;
import panamax.api.tensor.Backend;

/** The {@code full} layout against the reference under generated operation sequences, over every codec. */
class FullLayoutProperties {
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
        return Sequences.codecs(CodecChoice.IDENTITY, CodecChoice.AFFINE_8, CodecChoice.AFFINE_4, CodecChoice.TURBO_4_3)
                .zip(Generate.range(1, 3), (codec, rows) -> new LayoutSetup("full", Map.of(), codec, rows));
    }

    @Test
    void everyOperationSequenceKeepsTheFullLayoutEqualToTheReference() {
        qt().withExamples(500).forAll(setups(), Sequences.sequences()).checkAssert((setup, ops) ->
                new LayoutHarness(backend, setup, ops.hashCode()).runAndClose(ops));
    }
}
