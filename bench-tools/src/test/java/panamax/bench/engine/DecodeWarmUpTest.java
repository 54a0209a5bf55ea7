package panamax.bench.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import panamax.api.model.LoadOptions;
import panamax.api.model.RuntimeModel;
import panamax.api.plan.KvScheme;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.demo.DemoModel;
import panamax.engine.plan.ModelResolver;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.wiring.Engine;

/**
 * The decode benchmark's extra warm-up steps (as many as the JIT needs) grow the context through a cycle of lengths and
 * give their tokens back at each cycle's end and at the warm-up's, so the timed steps attend over {@code --context} +
 * {@code --warmup} tokens however long the JIT took; a window that wrapped cannot give tokens back and needs not (it
 * holds no more than its window), and those steps count.
 */
class DecodeWarmUpTest {
    @Test
    void extraWarmUpStepsGiveTheirTokenBackAndAWrappedWindowCountsThem() {
        Path demo = DemoModel.directory();
        PluginRegistry registry = PluginRegistry.discover(Optional.empty());
        Engine engine = Engine.start(registry);
        ModelResolver resolved = ModelResolver.resolve(demo, engine.models());
        var backendProvider = registry.backends().stream().filter(b -> b.id().equals("java")).findFirst().orElseThrow();
        try (Backend backend = backendProvider.provider().create(BackendOptions.defaults());
             RuntimeModel model = engine.models().get(resolved.plugin()).load(demo, backend, LoadOptions.defaults())) {
            DecodeMeasurement full = new DecodeMeasurement(engine, resolved.spec(), KvScheme.identity(), model.graph(), backend, 7);
            try (DecodeMeasurement.Rows run = full.new Rows(2, 8, 3, 4, false)) {
                assertArrayEquals(new int[] {11, 11}, run.caches.layer(0).offsets(), "8 tokens of context, 3 warm-up steps kept");
                for (int i = 0; i < 5; i++) run.warmStep();
                assertArrayEquals(new int[] {16, 16}, run.caches.layer(0).offsets(), "a cycle's steps keep their tokens until it ends");
                for (int i = 5; i < DecodeMeasurement.WARM_CYCLE; i++) run.warmStep();
                assertArrayEquals(new int[] {11, 11}, run.caches.layer(0).offsets(), "a whole cycle gives its tokens back");
                for (int i = 0; i < 5; i++) run.warmStep();
                run.giveBack();
                assertArrayEquals(new int[] {11, 11}, run.caches.layer(0).offsets(), "the end of the warm-up gives back the rest");
                assertEquals(3, run.kept);
                run.step();
                assertArrayEquals(new int[] {12, 12}, run.caches.layer(0).offsets(), "a timed step keeps its token");
            }

            KvScheme window = new KvScheme("identity", Map.of(), OptionalInt.empty(), OptionalInt.of(8), Optional.empty());
            DecodeMeasurement windowed = new DecodeMeasurement(engine, resolved.spec(), window, model.graph(), backend, 7);
            try (DecodeMeasurement.Rows run = windowed.new Rows(1, 16, 1, 2, false)) {
                for (int i = 0; i < 3; i++) run.warmStep();
                run.giveBack();
                assertEquals(4, run.kept, "the ring wrapped at 8 tokens: every step keeps its token");
                assertArrayEquals(new int[] {20}, run.caches.layer(0).offsets());
            }
        }
    }
}
