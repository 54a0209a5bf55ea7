package panamax.api.tensor;

import java.util.ArrayList;
import java.util.List;

/**
 * The intermediates of one composed default op: closes what it collects, newest first, except the
 * tensor {@link #keep kept} for the caller. Confined to one thread.
 */
final class OwnedTensors implements AutoCloseable {
    private final List<Tensor> owned = new ArrayList<>();

    Tensor add(Tensor t) {
        owned.add(t);
        return t;
    }

    Tensor keep(Tensor t) {
        owned.remove(t);
        return t;
    }

    @Override
    public void close() {
        for (int i = owned.size() - 1; i >= 0; i--) owned.get(i).close();
    }
}
