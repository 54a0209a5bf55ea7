package panamax.kv.layouts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Function;
import panamax.api.kv.KvCodecProvider;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.tensor.Backend;
import panamax.api.tensor.BackendOptions;
import panamax.api.tensor.BackendProvider;

/** Finds the plugins the tests run with, by id, the way the engine does: through ServiceLoader. */
final class Plugins {
    private Plugins() {
    }

    /**
     * The backend the properties run on, owned by the caller: {@code java} on two threads (CI
     * machines have two cores) unless {@code -Dpanamax.test.backend=ID} names another, e.g.
     * {@code mlx} (with {@code PANAMAX_MLX_LIBRARY} pointing at libmlxc).
     */
    static Backend backend() {
        String id = System.getProperty("panamax.test.backend", "");
        BackendProvider provider = find(BackendProvider.class, id.isBlank() ? "java" : id, BackendProvider::id);
        provider.unavailableReason().ifPresent(reason -> {
            throw new AssertionError("-Dpanamax.test.backend=" + id + ": backend unavailable: " + reason);
        });
        return provider.create(new BackendOptions(2, Optional.empty(), Map.of()));
    }

    static KvCodecProvider codec(String id) {
        return find(KvCodecProvider.class, id, KvCodecProvider::id);
    }

    static KvLayoutProvider layout(String id) {
        return find(KvLayoutProvider.class, id, KvLayoutProvider::id);
    }

    private static <S> S find(Class<S> service, String id, Function<S, String> idOf) {
        List<S> found = new ArrayList<>();
        ServiceLoader.load(service).forEach(found::add);
        return found.stream().filter(p -> idOf.apply(p).equals(id)).findFirst().orElseThrow(() ->
                new AssertionError("no " + service.getSimpleName() + " with id " + id + " among "
                        + found.stream().map(idOf).toList()));
    }
}
