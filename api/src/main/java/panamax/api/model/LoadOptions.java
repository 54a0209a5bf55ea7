package panamax.api.model;

import java.util.Objects;

/**
 * How {@link ModelPlugin#load(java.nio.file.Path, panamax.api.tensor.Backend, LoadOptions)} places
 * a model's weights and whom it tells of its progress.
 *
 * @param weights  where the weights live once loaded
 * @param progress told after each tensor (or block of a copied file) is ready; called on the loading thread
 * @param buffers  the precision of derived constants (see {@link BufferPrecision})
 * @since 0.2
 */
public record LoadOptions(Weights weights, Progress progress, BufferPrecision buffers) {

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
        COPY,
        /**
         * {@link #COPY} where it is likely to pay and fit: the OS honours huge-page advice (Linux with
         * transparent huge pages set to {@code always} or {@code madvise}) and a checkpoint file takes
         * at most half of the memory the OS reports available; {@link #MAP} otherwise, or when either
         * cannot be read. Decided once per checkpoint, on the size of all its files together. The
         * CLI's default ({@link LoadOptions#defaults()} stays {@link #MAP}: an embedding application chooses).
         *
         * @since 0.3
         */
        AUTO
    }

    /**
     * The precision of constants a model derives from its config rather than reads from its files:
     * RoPE inverse frequencies and Gemma's embedding scale, which Hugging Face keeps as module buffers.
     */
    public enum BufferPrecision {
        /**
         * Exact float32 values, as transformers' {@code from_pretrained} (in any dtype), MLX and
         * llama.cpp compute them. The default.
         */
        FLOAT32,
        /**
         * Rounded to the checkpoint's stored dtype ({@code config.json} {@code dtype}), as a
         * transformers model carries them after being cast in memory ({@code model.to(bfloat16)}).
         * Only for reproducing references made that way (the shared parity fixtures are); rotating by
         * bf16-rounded frequencies moves logits by about 1e-3 after a few dozen positions.
         */
        STORED_DTYPE
    }

    /** Hears of load progress; implementations must be cheap and must not throw. */
    @FunctionalInterface
    public interface Progress {
        /** A listener that ignores everything. */
        Progress NONE = (what, done, total) -> { };

        /**
         * {@code done} of {@code total} weight bytes are loaded; {@code what} names the tensor or
         * file just finished (empty for a first report of 0 as loading begins). {@code done} never
         * decreases within one load and ends equal to {@code total}.
         */
        void loaded(String what, long done, long total);
    }

    public LoadOptions {
        Objects.requireNonNull(weights, "weights");
        Objects.requireNonNull(progress, "progress");
        Objects.requireNonNull(buffers, "buffers");
    }

    /** Options with exact ({@link BufferPrecision#FLOAT32}) derived constants. */
    public LoadOptions(Weights weights, Progress progress) {
        this(weights, progress, BufferPrecision.FLOAT32);
    }

    /** Mapped weights, no progress: what {@link ModelPlugin#load(java.nio.file.Path, panamax.api.tensor.Backend)} does. */
    public static LoadOptions defaults() {
        return new LoadOptions(Weights.MAP, Progress.NONE);
    }

    /** These options with {@code progress} as the listener. */
    public LoadOptions withProgress(Progress progress) {
        return new LoadOptions(weights, progress, buffers);
    }

    /** These options with derived constants in {@code buffers} precision. */
    public LoadOptions withBuffers(BufferPrecision buffers) {
        return new LoadOptions(weights, progress, buffers);
    }

    /** These options with weights placed as {@code weights} says. */
    public LoadOptions withWeights(Weights weights) {
        return new LoadOptions(weights, progress, buffers);
    }
}
