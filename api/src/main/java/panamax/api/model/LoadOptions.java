package panamax.api.model;

import java.util.Objects;

/**
 * How {@link ModelPlugin#load(java.nio.file.Path, panamax.api.tensor.Backend, LoadOptions)} places
 * a model's weights and whom it tells of its progress.
 *
 * @param weights  where the weights live once loaded
 * @param progress told after each tensor (or block of a copied file) is ready; called on the loading thread
 * @since 0.2
 */
public record LoadOptions(Weights weights, Progress progress) {

    /** Where loaded weights live. */
    public enum Weights {
        /**
         * Memory-mapped from the checkpoint files (page cache, no copy): least memory, instant for a
         * cached file; on some machines reads of 4 KiB file pages cost more than of huge pages.
         */
        MAP,
        /**
         * Copied at load into anonymous memory the loader asks the OS to back with huge pages: costs
         * the weights' size in resident memory and a copy at load; where huge pages are unavailable
         * it is an ordinary copy.
         */
        COPY
    }

    /** Hears of load progress; implementations must be cheap and must not throw. */
    @FunctionalInterface
    public interface Progress {
        /** A listener that ignores everything. */
        Progress NONE = (what, done, total) -> { };

        /**
         * {@code done} of {@code total} weight bytes are loaded; {@code what} names the tensor or
         * file just finished. {@code done} never decreases within one load and ends equal to {@code total}.
         */
        void loaded(String what, long done, long total);
    }

    public LoadOptions {
        Objects.requireNonNull(weights, "weights");
        Objects.requireNonNull(progress, "progress");
    }

    /** Mapped weights, no progress: what {@link ModelPlugin#load(java.nio.file.Path, panamax.api.tensor.Backend)} does. */
    public static LoadOptions defaults() {
        return new LoadOptions(Weights.MAP, Progress.NONE);
    }

    /** These options with {@code progress} as the listener. */
    public LoadOptions withProgress(Progress progress) {
        return new LoadOptions(weights, progress);
    }

    /** These options with weights placed as {@code weights} says. */
    public LoadOptions withWeights(Weights weights) {
        return new LoadOptions(weights, progress);
    }
}
