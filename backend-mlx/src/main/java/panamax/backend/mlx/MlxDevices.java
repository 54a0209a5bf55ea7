package panamax.backend.mlx;

import static panamax.backend.mlx.c.MlxC.*;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import panamax.api.error.UnsupportedCombinationException;

/** MLX devices and streams, and the native constants the backend shares. Calls run under {@link Mlx#LOCK}. */
final class MlxDevices {
    /** A never-started thread: a segment it may access is accessible from every thread. */
    static final Thread NOT_THE_OWNER = Thread.ofPlatform().unstarted(() -> { });
    /**
     * The destructor handed to MLX for arrays that reference caller memory in place: a no-op,
     * because that memory belongs to the caller's arena (e.g. a mapped weights file).
     */
    static final MemorySegment NO_OP_DESTRUCTOR = noOpDestructor();

    private MlxDevices() {
    }

    private static void ignore(MemorySegment data) {
    }

    @SuppressWarnings("restricted")
    private static MemorySegment noOpDestructor() {
        try {
            var handle = MethodHandles.lookup().findStatic(MlxDevices.class, "ignore",
                    MethodType.methodType(void.class, MemorySegment.class));
            return Linker.nativeLinker().upcallStub(handle, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The device names this libmlxc can run on: always {@code cpu}, {@code gpu} when MLX has one. */
    static Set<String> available() {
        Set<String> out = new LinkedHashSet<>();
        out.add("cpu");
        if (isAvailable(MLX_GPU())) out.add("gpu");
        return out;
    }

    private static boolean isAvailable(int type) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dev = mlx_device_new_type(arena, type, 0);
            MemorySegment flag = arena.allocate(ValueLayout.JAVA_BOOLEAN);
            try {
                return mlx_device_is_available(flag, dev) == 0 && flag.get(ValueLayout.JAVA_BOOLEAN, 0);
            } finally {
                mlx_device_free(dev);
            }
        }
    }

    /** The default stream of {@code device} ({@code cpu} or {@code gpu}), owned by the caller. */
    static MemorySegment stream(String device) {
        Set<String> devices = available();
        if (!devices.contains(device)) {
            throw new UnsupportedCombinationException("mlx backend",
                    List.of("device: expected one of " + devices + " (what this libmlxc offers), found " + device));
        }
        return device.equals("gpu") ? mlx_default_gpu_stream_new(Mlx.structs()) : mlx_default_cpu_stream_new(Mlx.structs());
    }
}
