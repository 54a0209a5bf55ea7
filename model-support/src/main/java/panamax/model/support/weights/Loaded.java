package panamax.model.support.weights;

import java.util.List;

/** Bookkeeping for loaders that must close what they loaded when a later tensor fails. */
public final class Loaded {
    private Loaded() {
    }

    /** Adds {@code t} to {@code loaded} and returns it. */
    public static <T extends AutoCloseable> T track(List<AutoCloseable> loaded, T t) {
        loaded.add(t);
        return t;
    }

    /** Closes everything in {@code loaded}, adding failures to {@code e} as suppressed; returns {@code e} to rethrow. */
    public static RuntimeException closeAll(List<AutoCloseable> loaded, RuntimeException e) {
        for (AutoCloseable a : loaded) {
            try {
                a.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
        }
        return e;
    }

    /**
     * Closes everything in {@code owned}, all of it even when one fails.
     *
     * @throws IllegalStateException carrying the failures as suppressed exceptions, when any
     */
    public static void closeAll(List<? extends AutoCloseable> owned) {
        IllegalStateException failed = new IllegalStateException("closing " + owned.size() + " weights failed");
        for (AutoCloseable a : owned) {
            try {
                a.close();
            } catch (Exception e) {
                failed.addSuppressed(e);
            }
        }
        if (failed.getSuppressed().length > 0) throw failed;
    }
}
