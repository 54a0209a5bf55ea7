package panamax.api.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Anonymous memory that Linux is asked to back with transparent huge pages: {@code mmap} of a
 * private anonymous region aligned to 2 MiB, then {@code madvise(MADV_HUGEPAGE)} before anything
 * touches it, so that the first write faults in 2 MiB pages (with {@code defrag = madvise}, the
 * kernel compacts memory for them only when advised). Why: on the reference VM a quantized
 * matrix-vector product read from 4 KiB file-cache pages ran about 2× slower than from huge pages
 * (TLB misses under nested paging). Where the calls are unavailable (not Linux, native access
 * denied) it falls back to an ordinary arena allocation. Stateless and thread-safe.
 *
 * <p>Shared by the model loaders (weights copied at load) and the benchmarks (the read-bandwidth
 * probe must read the kind of memory the weights live in). Callers' modules need native access
 * ({@code --enable-native-access=panamax.api}); without it {@link #advised()} is false.
 *
 * @since 0.3
 */
public final class HugePageMemory {
    private static final long HUGE = 2L << 20;
    private static final int PROT_READ_WRITE = 0x3;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x22;
    private static final int MADV_HUGEPAGE = 14;
    private static final Optional<Calls> CALLS = Calls.find();

    private HugePageMemory() {
    }

    /** Whether huge-page advice is available here (else {@link #allocate} is a plain arena allocation). */
    public static boolean advised() {
        return CALLS.isPresent();
    }

    /**
     * {@code bytes} of zeroed memory, 2 MiB aligned, freed when {@code arena} (borrowed) closes.
     *
     * @throws OutOfMemoryError when neither the mapping nor the fallback can be had
     */
    public static MemorySegment allocate(long bytes, Arena arena) {
        if (CALLS.isPresent()) {
            MemorySegment s = CALLS.get().map(bytes, arena);
            if (s != null) return s;
        }
        return arena.allocate(Math.max(1, bytes), HUGE);
    }

    /** The bound libc functions; absent when a lookup or the native access check fails. */
    private record Calls(MethodHandle mmap, MethodHandle madvise, MethodHandle munmap) {
        static Optional<Calls> find() {
            try {
                if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) return Optional.empty();
                Linker linker = Linker.nativeLinker();
                var libc = linker.defaultLookup();
                MethodHandle mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                MethodHandle madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
                MethodHandle munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                return Optional.of(new Calls(mmap, madvise, munmap));
            } catch (RuntimeException e) {
                return Optional.empty(); // IllegalCallerException when native access is denied, NoSuchElementException off glibc
            }
        }

        /** The aligned region, or null when mmap fails (the caller falls back). */
        MemorySegment map(long bytes, Arena arena) {
            long length = bytes + HUGE; // room to round the start up to a 2 MiB boundary
            try {
                MemorySegment raw = (MemorySegment) mmap.invokeExact(MemorySegment.NULL, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
                if (raw.address() == -1L) return null; // MAP_FAILED
                long start = (raw.address() + HUGE - 1) & -HUGE;
                MemorySegment aligned = MemorySegment.ofAddress(start);
                // advice failing (THP compiled out) only costs the speed-up: the memory is still good
                int ignored = (int) madvise.invokeExact(aligned, bytes, MADV_HUGEPAGE);
                long rawAddress = raw.address();
                return aligned.reinterpret(bytes, arena, unused -> unmap(rawAddress, length));
            } catch (Throwable t) {
                return null;
            }
        }

        private void unmap(long address, long length) {
            try {
                int ignored = (int) munmap.invokeExact(MemorySegment.ofAddress(address), length);
            } catch (Throwable t) {
                // nothing to do: the process keeps the region until it exits
            }
        }
    }
}
