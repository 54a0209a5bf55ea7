package panamax.api.tensor;

import java.util.Set;
import panamax.api.tensor.kernel.KernelFamily;

/**
 * What a backend declares before it is created, so the planner can choose without instantiating.
 *
 * @param storageTypes   dtypes its tensors can hold
 * @param quantizedBits  bit widths its affine {@code quantize}/{@code quantizedMatmul} support
 * @param groupSizes     group sizes its affine ops support
 * @param lazy           true when ops build a graph and {@link Backend#eval} computes it
 * @param devices        device names it can run on, e.g. {@code cpu}, {@code gpu}
 * @param kernels        the optional kernel families {@link Backend#kernel} hands out (since 0.4)
 */
public record BackendCapabilities(Set<DType> storageTypes, Set<Integer> quantizedBits, Set<Integer> groupSizes,
                                  boolean lazy, Set<String> devices, Set<Class<? extends KernelFamily>> kernels) {
    public BackendCapabilities {
        storageTypes = Set.copyOf(storageTypes);
        quantizedBits = Set.copyOf(quantizedBits);
        groupSizes = Set.copyOf(groupSizes);
        devices = Set.copyOf(devices);
        kernels = Set.copyOf(kernels);
    }

    /** Capabilities of a backend that offers no optional kernels. */
    public BackendCapabilities(Set<DType> storageTypes, Set<Integer> quantizedBits, Set<Integer> groupSizes, boolean lazy, Set<String> devices) {
        this(storageTypes, quantizedBits, groupSizes, lazy, devices, Set.of());
    }
}
