package panamax.backend.mlx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import panamax.backend.mlx.c.MlxC;
import panamax.backend.mlx.c.mlx_error_handler_func;

/**
 * Turns mlx-c failures into Java exceptions. mlx-c catches MLX's C++ exceptions, passes their
 * message to a process-wide error handler and returns a non-zero status; the handler installed
 * here (an FFM upcall) records the message for the calling thread, and {@link #check} throws it.
 * The upcall stub lives in the global arena: mlx-c keeps the pointer for the life of the process.
 */
final class MlxErrors {
    private static final ThreadLocal<String> LAST = new ThreadLocal<>();

    private MlxErrors() {
    }

    static void install() {
        try {
            var handle = MethodHandles.lookup().findStatic(MlxErrors.class, "onError",
                    MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class));
            @SuppressWarnings("restricted")
            MemorySegment stub = java.lang.foreign.Linker.nativeLinker()
                    .upcallStub(handle, mlx_error_handler_func.descriptor(), Arena.global());
            MlxC.mlx_set_error_handler(stub, MemorySegment.NULL, MemorySegment.NULL);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The upcall: must not throw (an exception escaping an upcall ends the JVM). */
    private static void onError(MemorySegment message, MemorySegment data) {
        try {
            LAST.set(message.equals(MemorySegment.NULL) ? "(no message)" : message.reinterpret(1 << 16).getString(0));
        } catch (Throwable t) {
            LAST.set("(unreadable MLX message: " + t + ")");
        }
    }

    /** Throws {@link MlxException} naming {@code what} and MLX's message when {@code status} is not 0. */
    static void check(int status, String what) {
        if (status != 0) {
            String message = LAST.get();
            LAST.remove();
            throw new MlxException(what + ": " + (message == null ? "mlx-c returned " + status : message));
        }
    }
}
