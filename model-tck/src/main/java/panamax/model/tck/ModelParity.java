package panamax.model.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import panamax.api.model.LoadOptions;
import panamax.api.model.ModelPlugin;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.engine.parity.ParityCheck;
import panamax.engine.parity.ParityReference;
import panamax.engine.parity.ParityReport;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.runtime.KvStateFactory;
import panamax.engine.wiring.Engine;
import panamax.layout.tck.LayoutTck;

/**
 * The parity check of {@link ModelTck} as a call, for suites that iterate many model folders: loads
 * a model with a given plugin and compares it with its reference logits through the engine's
 * {@link ParityCheck} (single prompt at every position, KV-cached greedy decode, left-padded batch),
 * the KV caches planned and built as for generation from the codecs and layouts on the class path.
 * Stateless.
 */
public final class ModelParity {
    /** Max |Δlogit| a float32 path stays under against a transformers reference. */
    public static final double TOLERANCE = 1e-4;

    private ModelParity() {
    }

    /**
     * Loads {@code directory} with {@code plugin} on {@code backend} (borrowed) and compares it with
     * {@code reference}; the model is closed before this returns.
     *
     * @param buffers the precision of derived constants (RoPE frequencies) the reference was made with
     * @throws panamax.api.error.BadModelFileException when the model or the reference is malformed
     * @throws panamax.api.error.UnsupportedCombinationException when no plan fits {@code kv}
     */
    public static ParityReport check(ModelPlugin plugin, Path directory, Path reference, LoadOptions.BufferPrecision buffers,
                                     KvScheme kv, Backend backend) {
        ParityReference ref = ParityReference.read(reference);
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        ParityCheck check = new ParityCheck(Engine.start(registry).planner(), KvStateFactory.of(registry), kv);
        try (RuntimeModel model = plugin.load(directory, backend, LoadOptions.defaults().withBuffers(buffers))) {
            return check.check(model, backend, ref);
        }
    }

    /**
     * The backend the kit runs on, owned by the caller: {@code java} unless
     * {@code -Dpanamax.test.backend=ID} names another (e.g. {@code mlx}).
     */
    public static Backend testBackend() {
        return LayoutTck.testBackend();
    }

    /**
     * Asserts every part of {@code report} within {@code tolerance}, and no greedy id that differs
     * where the reference's top-1/top-2 margin exceeds twice the measured error.
     *
     * @param what names the model in failure messages
     */
    public static void assertMatches(ParityReport report, double tolerance, String what) {
        assertTrue(report.maxAbsDiffSingle() <= tolerance, what + " single prompt: " + report.toJson());
        assertTrue(report.maxAbsDiffSteps() <= tolerance, what + " cached decode: " + report.toJson());
        assertTrue(report.maxAbsDiffBatch() <= tolerance, what + " left-padded batch: " + report.toJson());
        assertEquals(0, report.decisiveMismatches(), what + " greedy ids: " + report.toJson());
        assertTrue(report.greedyPositions() > 0, what + " compared no greedy position: " + report.toJson());
    }
}
