package panamax.server.scheduler;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import panamax.api.plan.KvScheme;
import panamax.demo.DemoModel;
import panamax.engine.generate.ModelSession;
import panamax.engine.plugins.PluginRegistry;
import panamax.engine.serve.BatchScheduler;
import panamax.engine.serve.SchedulerObserver;
import panamax.engine.serve.ServingConfig;
import panamax.engine.serve.ServingPlan;

/** The models the scheduler tests run on: the shared fixtures (a missing one fails) and the bundled demo model. */
final class Models {
    static final String DEMO = "demo";
    static final List<String> ALL = List.of("llama-tiny", "qwen3-tiny", "gemma3-tiny", DEMO);

    private Models() {
    }

    static Path directory(String name) {
        if (name.equals(DEMO)) return DemoModel.directory();
        String root = System.getProperty("panamax.fixtures");
        assertTrue(root != null, "system property panamax.fixtures is not set");
        Path dir = Path.of(root).resolve(name);
        assertTrue(Files.isRegularFile(dir.resolve("config.json")), "fixture " + name + " is missing at " + dir);
        return dir;
    }

    /** A session of {@code name} on the Java backend; the caller closes it. */
    static ModelSession open(String name) {
        return ModelSession.open(PluginRegistry.discover(Optional.empty()), directory(name), KvScheme.identity(), Optional.of("java"));
    }

    static BatchScheduler scheduler(ModelSession session, ServingConfig config) {
        ServingPlan plan = ServingPlan.resolve(session.plan(1, 0), session::layoutCapabilities, config);
        return BatchScheduler.start(session, plan, SchedulerObserver.NONE);
    }
}
