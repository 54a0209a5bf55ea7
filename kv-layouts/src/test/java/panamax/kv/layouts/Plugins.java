package panamax.kv.layouts;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;
import panamax.api.kv.KvLayoutProvider;
import panamax.api.tensor.Backend;
import panamax.layout.tck.LayoutTck;

/** Finds the plugins the tests run with, by id, the way the engine does: through ServiceLoader. */
final class Plugins {
    private Plugins() {
    }

    /** The backend the tests run on, owned by the caller (see {@link LayoutTck#testBackend()}). */
    static Backend backend() {
        return LayoutTck.testBackend();
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
