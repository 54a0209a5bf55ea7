package panamax.api.tensor.kernel;

/**
 * A family of optional fused kernels a backend may offer beyond {@link panamax.api.tensor.Ops}: a
 * backend lists the families it offers in {@link panamax.api.tensor.BackendCapabilities#kernels()}
 * and hands them out through {@link panamax.api.tensor.Backend#kernel}. A caller that finds none
 * composes the same values from {@code Ops} (the KV codecs keep those compositions next to
 * themselves). Implementations follow {@code Ops}' rules: tensor arguments are borrowed, results are
 * new and owned by the caller, tensors of other backends are refused. Thread-safe.
 *
 * @since 0.4
 */
public interface KernelFamily {
}
